import BoardStore
import BoardTesting
import Foundation
import Testing

/// `corkd --health` on PostgreSQL: the port a load balancer checks answers 503 while the node cannot reach its
/// database, however it learns of it, and 200 again once it can.
@Suite(.serialized, .enabled(if: PostgresTestDatabase.isEnabled), .startsProcesses(within: .minutes(2)))
struct PostgresHealthTests {
    @Test("the health port answers 503 while the database is down, though no op was committed or refused, and 200 once it is back")
    func healthFollowsTheDatabase() async throws {
        try await withPostgresTestServer { database in
            let corkd = try CorkdProcess()
            defer { corkd.cleanup() }
            try await corkd.start(options: [
                "--store", PostgresServeTests.url(database.location), "--health", "127.0.0.1:\(try LoopbackPort.closed())",
            ])
            let port = try #require(corkd.healthPort)
            #expect(try await HTTPProbe.get("/health", port: port).status == 200, "serving")
            try await database.stop()
            let down = try await Self.health(port, awaiting: 503, within: .seconds(15))
            #expect(down.status == 503, "15 s into the outage the health port still answers \(down.status) \(down.body)")
            try await database.start()
            let up = try await Self.health(port, awaiting: 200, within: .seconds(20))
            #expect(up.status == 200, "20 s after the database came back the health port answers \(up.status) \(up.body)")
        }
    }

    /// Polls `/health` until it answers `status` or `timeout` passes; returns the last reply.
    static func health(_ port: Int, awaiting status: Int, within timeout: Duration) async throws -> HTTPProbe.Reply {
        let deadline = ContinuousClock.now + timeout
        while true {
            let reply = try await HTTPProbe.get("/health", port: port)
            if reply.status == status || ContinuousClock.now >= deadline { return reply }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}
