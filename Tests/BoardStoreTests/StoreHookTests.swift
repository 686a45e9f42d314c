import BoardCore
import Foundation
import Testing

@testable import BoardStore

/// Outgoing webhooks as the store keeps them: added per board, listed, their delivery state updated, and
/// removed; the same behaviour on SQLite and PostgreSQL, and kept across a reopen.
@Suite("Store (SQLite and PostgreSQL) webhooks")
struct StoreHookTests {
    static func hook(
        _ id: String, board: BoardID = "main", at offset: Int64 = 0, delivered: UInt64 = 0, query: String? = nil
    ) -> HookRecord {
        HookRecord(
            id: id, board: board, url: "https://example.com/\(id)", events: ["card.*", "comment.add"], query: query,
            secret: "s3cret-\(id)", createdBy: "alice", createdAt: Timestamp(milliseconds: StoreFixtures.t0 + offset),
            state: HookState(delivered: delivered))
    }

    @Test("hooks are added per board, listed in order, updated and removed", arguments: StoreFixtures.kinds)
    func lifecycle(kind: StoreKind) async throws {
        try await StoreFixtures.withStore(kind) { store, _ in
            _ = try await store.createBoard(Board(id: "main", name: "Main", owner: "alice"))
            _ = try await store.createBoard(Board(id: "ops", name: "Ops", owner: "alice"))
            #expect(try await store.hooks(board: nil).isEmpty)

            #expect(try await store.addHook(Self.hook("h-b", at: 2, delivered: 7, query: #"label:incident "two words""#), maxPerBoard: 2))
            #expect(try await store.addHook(Self.hook("h-a", at: 1), maxPerBoard: 2))
            #expect(try await store.addHook(Self.hook("h-ops", board: "ops"), maxPerBoard: 2))
            // The limit is per board.
            #expect(try await store.addHook(Self.hook("h-c", at: 3), maxPerBoard: 2) == false)
            await #expect(throws: StoreError.self) { try await store.addHook(Self.hook("h-a", board: "ops"), maxPerBoard: 5) }
            await #expect(throws: StoreError.self) { try await store.addHook(Self.hook("h-x", board: "nope"), maxPerBoard: 5) }

            // The query is kept as written (nil: none).
            #expect(
                try await store.hooks(board: "main")
                    == [Self.hook("h-a", at: 1), Self.hook("h-b", at: 2, delivered: 7, query: #"label:incident "two words""#)])
            #expect(try await store.hooks(board: nil).map(\.id) == ["h-a", "h-b", "h-ops"])

            let state = HookState(
                delivered: 9, failures: 3, failingSince: Timestamp(milliseconds: StoreFixtures.t0 + 10), failing: true,
                lastError: "HTTP 500", lastAttemptAt: Timestamp(milliseconds: StoreFixtures.t0 + 20))
            try await store.updateHook("h-b", state: state)
            #expect(try await store.hooks(board: "main").last?.state == state)
            try await store.updateHook("h-gone", state: state)  // removed meanwhile: nothing happens

            #expect(try await store.removeHook("h-b", board: "ops") == false)  // another board's id
            #expect(try await store.removeHook("h-b", board: "main"))
            #expect(try await store.removeHook("h-b", board: "main") == false)
            #expect(try await store.hooks(board: nil).map(\.id) == ["h-a", "h-ops"])
        }
    }

    @Test("hooks and their delivery state survive a reopen")
    func durable() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let store = try await SQLiteStore.open(directory: directory, logger: StoreFixtures.logger)
            _ = try await store.createBoard(Board(id: "main", name: "Main", owner: "alice"))
            _ = try await store.addHook(Self.hook("h-a", query: "@me"), maxPerBoard: 20)
            try await store.updateHook("h-a", state: HookState(delivered: 4, lastAttemptAt: Timestamp(milliseconds: 5)))
            try await store.close()
            let reopened = try await SQLiteStore.open(directory: directory, logger: StoreFixtures.logger)
            #expect(try await reopened.hooks(board: "main").first?.state == HookState(delivered: 4, lastAttemptAt: Timestamp(milliseconds: 5)))
            #expect(try await reopened.hooks(board: "main").first?.query == "@me")
            try await reopened.close()
        }
    }
}
