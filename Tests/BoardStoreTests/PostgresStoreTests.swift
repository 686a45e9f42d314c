import BoardCore
import BoardTesting
import Foundation
import Testing

@testable import BoardStore

/// What only the shared PostgreSQL store must do: several nodes on one database.
@Suite("PostgresStore: several nodes on one database", .enabled(if: PostgresTestDatabase.isEnabled), .startsProcesses(within: .minutes(2)))
struct PostgresStoreTests {
    @Test("two nodes starting at once migrate the schema once and both serve")
    func concurrentMigration() async throws {
        try await PostgresTestDatabase.withDatabase { location in
            async let first = PostgresStore.open(location, logger: StoreFixtures.logger)
            async let second = PostgresStore.open(location, logger: StoreFixtures.logger)
            let stores = try await [first, second]
            _ = try await stores[0].createBoard(Board(id: "main", name: "Main", owner: "alice"))
            #expect(try await stores[1].boards().map(\.id) == ["main"])
            for store in stores { try await store.close() }
        }
    }

    @Test("two nodes appending the same seq of one board at the same instant: exactly one commits, the other writes nothing and is told the head moved")
    func racingAppends() async throws {
        try await PostgresTestDatabase.withDatabase { location in
            let a = try await PostgresStore.open(location, logger: StoreFixtures.logger)
            let b = try await PostgresStore.open(location, logger: StoreFixtures.logger)
            var driver = BoardDriver("main")
            _ = try await a.createBoard(driver.board)
            for round in 0..<20 {
                var left = driver
                var right = driver
                let first = left.chat("from a \(round)", clientID: "a", mut: UInt64(round + 1))
                let second = right.chat("from b \(round)", clientID: "b", mut: UInt64(round + 1))
                let one = try #require(first)
                let other = try #require(second)
                async let x: Result<Void, StoreError> = Self.outcome { () async throws(StoreError) in try await a.append([one], snapshots: []) }
                async let y: Result<Void, StoreError> = Self.outcome { () async throws(StoreError) in try await b.append([other], snapshots: []) }
                let outcomes = await [x, y]
                let won = outcomes.filter { if case .success = $0 { true } else { false } }.count
                #expect(won == 1, "round \(round): \(outcomes)")
                // The loser is told the head moved, and to where: a typed outcome, not `.internal`.
                for case .failure(let error) in outcomes {
                    #expect(error.code == .headMoved, "round \(round): \(error)")
                    #expect(error.movedHead?.board == "main" && error.movedHead?.seq == one.seq, "round \(round): \(error)")
                }
                let stored = try await a.events("main", from: one.seq, to: one.seq + 5, limit: 10)
                #expect(stored.count == 1, "round \(round): one event at seq \(one.seq), got \(stored.map(\.seq))")
                driver = stored.first?.clientID == "a" ? left : right
            }
            let records = try await b.boards()
            #expect(records.first?.seq == 20)
            try await a.close()
            try await b.close()
        }
    }

    @Test("every append that adds events announces the board's new head (LISTEN corkd_heads), only once committed")
    func headAnnouncements() async throws {
        try await PostgresTestDatabase.withDatabase { location in
            let store = try await PostgresStore.open(location, logger: StoreFixtures.logger)
            var driver = BoardDriver("main")
            _ = try await store.createBoard(driver.board)
            let (signals, heard) = AsyncStream.makeStream(of: HeadSignal.self)
            let watching = Task { await store.watchHeads(retryDelay: .milliseconds(100)) { heard.yield($0) } }
            var iterator = signals.makeAsyncIterator()
            #expect(await iterator.next() == .listening(reconnected: false))
            var copy = driver
            let never = copy.chat("never stored")
            var gap = try #require(never)
            gap.seq = 9
            await #expect(throws: StoreError.self) { try await store.append([gap], snapshots: []) }
            let one = driver.chat("one")
            try await store.append([try #require(one)], snapshots: [])
            // The rolled-back append announced nothing: the next announcement is the committed seq 1.
            guard case .moved(let board, let seq, let at)? = await iterator.next() else {
                Issue.record("no announcement")
                return
            }
            #expect(board == "main" && seq == 1)
            #expect(at.milliseconds > 1_700_000_000_000, "the database's clock at the commit")
            watching.cancel()
            await watching.value
            heard.finish()
            try await store.close()
        }
    }

    @Test("an admin command finds a serving node by its shared lock, and takes the lock itself when none serves")
    func servingLock() async throws {
        try await PostgresTestDatabase.withDatabase { location in
            let node = try await PostgresStore.open(location, logger: StoreFixtures.logger)
            let tool = try await PostgresStore.open(location, logger: StoreFixtures.logger)
            let serving = try await node.holdServingLock()
            let second = try await tool.holdServingLock()  // a second node shares it
            #expect(try await tool.tryExclusiveServingLock() == nil, "nodes serve: the tool must queue")
            await serving.release()
            #expect(try await tool.tryExclusiveServingLock() == nil, "one node still serves")
            await second.release()
            let exclusive = try #require(try await tool.tryExclusiveServingLock(), "no node serves")
            #expect(try await node.tryExclusiveServingLock() == nil, "another tool holds it")
            await exclusive.release()
            try await node.close()
            try await tool.close()
        }
    }

    @Test("a bad store URL is refused with a sentence, and the password never appears in it")
    func locations() throws {
        let parsed = try PostgresLocation.parse("postgres://corkd:s3cret@db.example.com:6543/boards?sslmode=require")
        #expect(parsed.host == "db.example.com" && parsed.port == 6543 && parsed.user == "corkd")
        #expect(parsed.password == "s3cret" && parsed.database == "boards" && parsed.tls == .require)
        #expect(!parsed.description.contains("s3cret"))
        #expect(try PostgresLocation.parse("postgresql://u@h/d", environment: ["PGPASSWORD": "pw"]).password == "pw")
        for bad in ["mysql://u@h/d", "postgres://h/d", "postgres://u@h/", "postgres://u:pw@h/d?mode=x", "postgres://u@/d"] {
            let error = #expect(throws: StoreError.self) { try PostgresLocation.parse(bad) }
            #expect(!(error?.message.contains("pw") ?? true), "\(bad): \(String(describing: error))")
        }
    }

    static func outcome(_ body: () async throws(StoreError) -> Void) async -> Result<Void, StoreError> {
        do {
            try await body()
            return .success(())
        } catch {
            return .failure(error)
        }
    }
}

/// The leases: one node at a time applies the admin queue (or delivers the webhooks), and a node that lets go (or
/// dies) hands it on.
@Suite("PostgresStore: the leases", .enabled(if: PostgresTestDatabase.isEnabled), .startsProcesses(within: .minutes(2)))
struct PostgresAdminLeaseTests {
    @Test("only one of two nodes holds a lease; when its holder lets go the other takes it")
    func oneHolderAtATime() async throws {
        try await PostgresTestDatabase.withDatabase { location in
            let a = try await PostgresStore.open(location, logger: StoreFixtures.logger)
            let b = try await PostgresStore.open(location, logger: StoreFixtures.logger)
            let held = try #require(try await a.takeLease(.admin))
            #expect(await held.isHeld())
            #expect(try await b.takeLease(.admin) == nil, "a second node must not take a held lease")
            let hooks = try #require(try await b.takeLease(.hooks), "each lease is its own lock")
            await held.release()
            #expect(await held.isHeld() == false)
            let taken = try #require(try await b.takeLease(.admin), "the lease passes on once its holder lets go")
            #expect(await taken.isHeld())
            #expect(try await a.takeLease(.hooks) == nil)
            await taken.release()
            await hooks.release()
            try await a.close()
            try await b.close()
        }
    }

    @Test("the admin log lists every command with where it stands, and the newest id")
    func adminLog() async throws {
        try await PostgresTestDatabase.withDatabase { location in
            let store = try await PostgresStore.open(location, logger: StoreFixtures.logger)
            #expect(try await store.newestCommandID() == 0)
            let ids = try await store.enqueue(
                [.revoke(user: "mallory"), .archiveBoard(board: "old"), .renameBoard(board: "main", name: "M")],
                now: Timestamp(milliseconds: 1))
            try await store.finish([(ids[0], nil), (ids[1], AdminFailure(.notFound, "no board old"))])
            #expect(try await store.newestCommandID() == ids[2])
            let log = try await store.commands(after: 0, limit: 10)
            #expect(log.map(\.id) == ids)
            #expect(log.map(\.outcome) == [.done, .failed(AdminFailure(.notFound, "no board old")), .pending])
            #expect(log[0].command == .revoke(user: "mallory"))
            #expect(try await store.commands(after: ids[0], limit: 1).map(\.id) == [ids[1]])
            _ = try await store.createBoard(Board(id: "b2", name: "Two", owner: "alice"))
            #expect(try await store.boardRecord("b2")?.name == "Two")
            #expect(try await store.boardRecord("nope") == nil)
            try await store.setArchived("b2", true, now: Timestamp(milliseconds: 2))
            #expect(try await store.boardRecord("b2")?.archived == true)
            try await store.close()
        }
    }
}
