import BoardCore
import Foundation
import Testing

@testable import BoardStore

/// The admin queue `corkd invite`/`revoke` use while the server runs.
@Suite("SQLiteStore admin queue")
struct StoreAdminTests {
    @Test("commands come back in order until marked done")
    func queueOrder() async throws {
        try await StoreFixtures.withStore { store, _ in
            let now = Timestamp(milliseconds: StoreFixtures.t0)
            let commands: [AdminCommand] = [
                .createBoard(board: "ops", name: "Ops", owner: "alice"),
                .addMember(board: "ops", user: "bob", role: .editor),
                .revoke(user: "mallory"),
            ]
            var ids: [Int64] = []
            for command in commands { ids.append(try await store.enqueue(command, now: now)) }
            #expect(ids == ids.sorted() && Set(ids).count == 3)

            #expect(try await store.pendingCommands(after: 0).map(\.command) == commands)
            #expect(try await store.pendingCommands(after: 0).map(\.id) == ids)
            #expect(try await store.pendingCommands(after: ids[0]).map(\.command) == Array(commands[1...]))

            try await store.markDone(ids[1])
            try await store.markDone(ids[1])  // twice is fine
            #expect(try await store.pendingCommands(after: 0).map(\.id) == [ids[0], ids[2]])
            try await store.markDone(ids[0])
            try await store.markDone(ids[2])
            #expect(try await store.pendingCommands(after: 0).isEmpty)

            // Ids keep growing after done commands.
            let next = try await store.enqueue(.revoke(user: "eve"), now: now)
            #expect(next > ids[2])
            #expect(try await store.pendingCommands(after: ids[2]).map(\.id) == [next])

            let error = await #expect(throws: StoreError.self) { try await store.markDone(9999) }
            #expect(error?.code == .notFound)
        }
    }
}
