import BoardTesting
import Foundation
import PostgresNIO
import Testing

@testable import BoardStore

/// What a node's PostgreSQL store keeps, or takes again, when the database restarts under it.
@Suite(.serialized, .enabled(if: PostgresTestDatabase.isEnabled), .startsProcesses(within: .minutes(2)))
struct PostgresRestartTests {
    @Test("a node's shared serving lock is taken again once the database is back, so an admin command still hands its work to the node")
    func servingLockIsRetaken() async throws {
        try await withPostgresTestServer { database in
            let location = database.location
            let logger = StoreFixtures.logger
            let serving = try await PostgresServingLock.holdShared(at: location, logger: logger)
            #expect(try await PostgresServingLock.tryExclusive(at: location, logger: logger) == nil, "the node serves")
            try await database.stop()
            try await database.start()
            #expect(
                try await Self.held(location, within: .seconds(15)),
                "15 s after the database came back no node holds the serving lock: an admin command would apply its commands beside the node")
            await serving.release()
            let tool = try #require(
                try await PostgresServingLock.tryExclusive(at: location, logger: logger), "released: no node serves")
            await tool.release()
        }
    }

    @Test("a transaction whose backend is terminated under it fails with .io within seconds instead of waiting for ever")
    func terminatedTransactionReturns() async throws {
        try await PostgresTestDatabase.withDatabase { location in
            let store = try await PostgresStore.open(location, logger: StoreFixtures.logger)
            let outcome = Outcome()
            let logger = StoreFixtures.logger
            // Not awaited in a group: a write that never returns would hold the group (it is left behind instead).
            let write = Task {
                do {
                    try await store.write("sleeping") { connection in
                        try await connection.query("SELECT pg_sleep(60)", logger: logger)
                    }
                    await outcome.set("committed")
                } catch {
                    await outcome.set("\(error)")
                }
            }
            let ended = try await Self.terminate("SELECT pg_sleep(60)", store: store)
            #expect(ended == 1, "the sleeping backend was found and terminated")
            let answer = try await outcome.wait(for: .seconds(15))
            #expect(answer?.hasPrefix("io:") == true, "the write answers .io once its connection is gone: \(answer ?? "no answer within 15 s")")
            if answer == nil {
                write.cancel()
            } else {
                try await store.close()
            }
        }
    }

    @Test("a query written after its connection closed (postgres-nio never answers it) does not hold the request for ever")
    func droppedQueryDoesNotHang() async throws {
        try await PostgresTestDatabase.withDatabase { location in
            let store = try await PostgresStore.open(location, logger: StoreFixtures.logger)
            let outcome = Outcome()
            let logger = StoreFixtures.logger
            // Not awaited in a group: a read that never returns would hold the group (it is left behind instead).
            let read = Task {
                do {
                    _ = try await store.read("after the close") { connection in
                        // Ended by the test below; then a query on the closed connection, as a ROLLBACK after a failed
                        // statement was: postgres-nio drops it without answering.
                        _ = try? await connection.query("SELECT pg_sleep(60)", logger: logger)
                        while !connection.isClosed { try await Task.sleep(for: .milliseconds(10)) }
                        try await connection.query("SELECT 1", logger: logger)
                    }
                    await outcome.set("answered")
                } catch {
                    await outcome.set("\(error)")
                }
            }
            #expect(try await Self.terminate("SELECT pg_sleep(60)", store: store) == 1, "the sleeping backend was terminated")
            let answer = try await outcome.wait(for: .seconds(15))
            #expect(answer?.hasPrefix("io:") == true, "the read answers .io once its connection is gone: \(answer ?? "no answer within 15 s")")
            if answer == nil {
                read.cancel()
            } else {
                try await store.close()
            }
        }
    }

    /// Terminates the backends running `query` (polled for up to 10 s until there is one); returns how many.
    static func terminate(_ query: String, store: PostgresStore) async throws -> Int {
        let logger = StoreFixtures.logger
        var ended = 0
        let deadline = ContinuousClock.now + .seconds(10)
        while ended == 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            ended = try await store.read("terminate") { connection in
                var count = 0
                for try await ended in try await connection.query(
                    """
                    SELECT count(*)::bigint FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                    WHERE datname = current_database() AND query = \(query) AND pid <> pg_backend_pid()) AS ended
                    """, logger: logger
                ).decode(Int64.self) {
                    count = Int(ended)
                }
                return count
            }
        }
        return ended
    }

    /// What a write left behind ended with.
    actor Outcome {
        private var text: String?
        func set(_ text: String) { self.text = text }

        /// The outcome once there is one, or nil after `timeout`.
        func wait(for timeout: Duration) async throws -> String? {
            let deadline = ContinuousClock.now + timeout
            while text == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
            return text
        }
    }

    /// Whether some node holds the serving lock within `timeout` (polled: each time it is free, the probe lets go at
    /// once, so a node waiting for it gets it).
    static func held(_ location: PostgresLocation, within timeout: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            do {
                guard let probe = try await PostgresServingLock.tryExclusive(at: location, logger: StoreFixtures.logger)
                else { return true }
                await probe.release()
            } catch {
                // The database is not taking logins yet.
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        return false
    }
}
