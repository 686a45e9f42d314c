import BoardCore
import BoardTesting
import Foundation
import Testing

@testable import BoardStore

/// What only the shared PostgreSQL store must do: several nodes on one database (issue 13).
@Suite("PostgresStore: several nodes on one database", .enabled(if: PostgresTestDatabase.isEnabled), .timeLimit(.minutes(2)))
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

    @Test("two nodes appending the same seq of one board at the same instant: exactly one commits, the other writes nothing")
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
