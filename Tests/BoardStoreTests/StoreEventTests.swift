import BoardCore
import Foundation
import Testing

@testable import BoardStore

/// Reading the log: ranges for resume and fetch, history pages, exactly-once lookups.
@Suite("Store (SQLite and PostgreSQL) events, history and mutations")
struct StoreEventTests {
    @Test("events: a closed range, ascending, cut at the limit", arguments: StoreFixtures.kinds)
    func eventRanges(kind: StoreKind) async throws {
        try await StoreFixtures.withStore(kind) { store, _ in
            var driver = BoardDriver("main")
            var other = BoardDriver("other")
            _ = try await store.createBoard(driver.board)
            _ = try await store.createBoard(other.board)
            let events = driver.workload(20)
            try await store.append(events, snapshots: [])
            try await store.append(other.workload(5), snapshots: [])

            #expect(try await store.events("main", from: 5, to: 12, limit: 100).map(\.seq) == Array(5...12))
            #expect(try await store.events("main", from: 5, to: 12, limit: 3).map(\.seq) == [5, 6, 7])
            #expect(try await store.events("main", from: 18, to: 500, limit: 100).map(\.seq) == [18, 19, 20])
            #expect(try await store.events("main", from: 7, to: 7, limit: 10) == [events[6]])
            #expect(try await store.events("main", from: 21, to: 30, limit: 10).isEmpty)
            #expect(try await store.events("main", from: 9, to: 8, limit: 10).isEmpty)
            #expect(try await store.events("main", from: 1, to: 20, limit: 0).isEmpty)
            #expect(try await store.events("main", from: 0, to: .max, limit: 1000).count == 20)
            #expect(try await store.events("other", from: 1, to: 100, limit: 100).count == 5)
            #expect(try await store.events("nope", from: 1, to: 100, limit: 100).isEmpty)
        }
    }

    @Test("history pages backwards, newest first, with and without a card filter", arguments: StoreFixtures.kinds)
    func historyPages(kind: StoreKind) async throws {
        try await StoreFixtures.withStore(kind) { store, _ in
            var driver = BoardDriver("main")
            _ = try await store.createBoard(driver.board)
            let events = driver.workload(30)
            try await store.append(events, snapshots: [])
            let c1 = events.filter { $0.activity.card == "c1" }.map(\.seq)
            #expect(c1.count > 5 && c1.count < 30)

            #expect(
                try await store.history("main", card: nil, before: nil, limit: 5).map(\.seq) == [30, 29, 28, 27, 26])
            #expect(try await store.history("main", card: nil, before: 12, limit: 3).map(\.seq) == [11, 10, 9])
            #expect(try await store.history("main", card: nil, before: 3, limit: 50).map(\.seq) == [2, 1])
            #expect(try await store.history("main", card: nil, before: 1, limit: 50).isEmpty)
            #expect(try await store.history("main", card: nil, before: nil, limit: 0).isEmpty)

            // Page through c1's history four at a time: every c1 record once, newest first.
            var paged: [UInt64] = []
            var before: UInt64?
            while true {
                let page = try await store.history("main", card: "c1", before: before, limit: 4)
                #expect(page.allSatisfy { $0.activity.card == "c1" })
                #expect(page.count <= 4)
                paged += page.map(\.seq)
                guard let last = page.last else { break }
                before = last.seq
            }
            #expect(paged == c1.reversed())
            #expect(try await store.history("main", card: "c9", before: nil, limit: 10).isEmpty)
            let chat = try await store.history("main", card: nil, before: nil, limit: 50).filter {
                $0.op.kind == "chat"
            }
            #expect(!chat.isEmpty && chat.allSatisfy { $0.activity.card == nil })
        }
    }

    @Test("committed finds an event by (user, client, mut); lastMutation is the highest mut, per user and board", arguments: StoreFixtures.kinds)
    func exactlyOnce(kind: StoreKind) async throws {
        try await StoreFixtures.withStore(kind) { store, _ in
            var driver = BoardDriver("main")
            _ = try await store.createBoard(driver.board)
            var events = driver.workload(4, clientID: "cork-alice", firstMut: 10)  // muts 10...13
            events += [driver.chat("from bob", actor: "bob", clientID: "cork-alice", mut: 3)].compactMap { $0 }
            events += [driver.chat("no client")].compactMap { $0 }
            try await store.append(events, snapshots: [])

            let found = try #require(try await store.committed(user: "alice", clientID: "cork-alice", mut: 12))
            #expect(found == events[2])
            #expect(try await store.committed(user: "bob", clientID: "cork-alice", mut: 3) == events[4])
            #expect(try await store.committed(user: "bob", clientID: "cork-alice", mut: 12) == nil)
            #expect(try await store.committed(user: "alice", clientID: "cork-other", mut: 12) == nil)
            #expect(try await store.committed(user: "alice", clientID: "cork-alice", mut: 14) == nil)
            #expect(try await store.committed(user: "alice", clientID: "cork-alice", mut: .max) == nil)

            #expect(try await store.lastMutation(user: "alice", clientID: "cork-alice", board: "main") == 13)
            #expect(try await store.lastMutation(user: "bob", clientID: "cork-alice", board: "main") == 3)
            #expect(try await store.lastMutation(user: "alice", clientID: "cork-other", board: "main") == nil)

            // A later batch moves the last mutation up, in the same transaction as its events.
            let more = [driver.chat("again", clientID: "cork-alice", mut: 20)].compactMap { $0 }
            try await store.append(more, snapshots: [])
            #expect(try await store.lastMutation(user: "alice", clientID: "cork-alice", board: "main") == 20)

            // One counter, two boards: the mark of each board is its own.
            var other = BoardDriver("other")
            _ = try await store.createBoard(other.board)
            try await store.append([other.chat("elsewhere", clientID: "cork-alice", mut: 30)].compactMap { $0 }, snapshots: [])
            #expect(try await store.lastMutation(user: "alice", clientID: "cork-alice", board: "other") == 30)
            #expect(try await store.lastMutation(user: "alice", clientID: "cork-alice", board: "main") == 20)
        }
    }
}
