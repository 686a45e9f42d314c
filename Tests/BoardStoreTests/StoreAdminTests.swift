import BoardCore
import Foundation
import Testing

@testable import BoardStore

/// The admin queue `corkd invite`/`revoke` use while the server runs.
@Suite("Store (SQLite and PostgreSQL) admin queue")
struct StoreAdminTests {
    @Test("commands come back in order until marked done", arguments: StoreFixtures.kinds)
    func queueOrder(kind: StoreKind) async throws {
        try await StoreFixtures.withStore(kind) { store, _ in
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

    @Test("outcomes: pending, then done or failed with the reason, the first outcome kept", arguments: StoreFixtures.kinds)
    func outcomes(kind: StoreKind) async throws {
        try await StoreFixtures.withStore(kind) { store, _ in
            let now = Timestamp(milliseconds: StoreFixtures.t0)
            let ids = try await store.enqueue(
                [.addMember(board: "main", user: "a", role: .editor), .archiveBoard(board: "x"), .revoke(user: "b")], now: now)
            #expect(ids.count == 3 && ids == ids.sorted())
            #expect(try await store.outcomes(ids) == [ids[0]: .pending, ids[1]: .pending, ids[2]: .pending])
            let failure = AdminFailure(.notFound, "no board x")
            try await store.finish([(ids[0], nil), (ids[1], failure)])
            #expect(try await store.outcomes(ids) == [ids[0]: .done, ids[1]: .failed(failure), ids[2]: .pending])
            #expect(try await store.pendingCommands(after: 0).map(\.id) == [ids[2]])
            try await store.finish([(ids[1], nil)])
            #expect(try await store.outcomes([ids[1]])[ids[1]]?.failure == failure, "the first outcome stays")
            let error = await #expect(throws: StoreError.self) { try await store.outcomes([9999]) }
            #expect(error?.code == .notFound)
        }
    }

    @Test("a board is archived and unarchived, listed with its flag", arguments: StoreFixtures.kinds)
    func archive(kind: StoreKind) async throws {
        try await StoreFixtures.withStore(kind) { store, _ in
            let now = Timestamp(milliseconds: StoreFixtures.t0)
            _ = try await store.createBoard(Board(id: "ops", name: "Ops", owner: "alice"))
            #expect(try await store.boards().map(\.archived) == [false])
            try await store.setArchived("ops", true, now: now)
            try await store.setArchived("ops", true, now: now)
            #expect(try await store.boards().map(\.archived) == [true])
            #expect(try await store.load("ops") != nil, "the data is kept")
            try await store.setArchived("ops", false, now: now)
            #expect(try await store.boards().map(\.archived) == [false])
            let error = await #expect(throws: StoreError.self) { try await store.setArchived("nope", true, now: now) }
            #expect(error?.code == .notFound)
        }
    }

    @Test("many users get a token each in one call, and each token authenticates", arguments: StoreFixtures.kinds)
    func inviteUsers(kind: StoreKind) async throws {
        try await StoreFixtures.withStore(kind) { store, _ in
            let now = Timestamp(milliseconds: StoreFixtures.t0)
            let users: [UserID] = ["a", "b", "a"]
            let tokens = try await store.inviteUsers(users, expiresAt: nil, now: now)
            #expect(tokens.count == 3 && Set(tokens).count == 3)
            for (user, token) in zip(users, tokens) {
                #expect(try await store.authenticate(token: token, now: now)?.user == user)
            }
            #expect(try await store.ensureUser("a", displayName: "") == false, "created once")
        }
    }
}
