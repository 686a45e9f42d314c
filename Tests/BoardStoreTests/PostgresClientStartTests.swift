import BoardTesting
import Foundation
import Logging
import Synchronization
import Testing

@testable import BoardStore

/// The store's connection pool runs before anything leases a connection: postgres-nio warns ("Trying to lease
/// connection from `PostgresClient`, but `PostgresClient.run()` hasn't been called yet") when a lease comes first,
/// which `corkd --store postgres://…` printed at every start.
@Suite(.enabled(if: PostgresTestDatabase.isEnabled), .startsProcesses(within: .minutes(1)))
struct PostgresClientStartTests {
    /// Collects every message logged at warning or above.
    final class Warnings: Sendable {
        let messages = Mutex<[String]>([])

        /// A logger whose messages at `.warning` and above land in `messages`.
        var logger: Logger {
            Logger(label: "corkboard.store.tests.warnings") { _ in Handler(sink: self) }
        }

        struct Handler: LogHandler {
            let sink: Warnings
            var metadata: Logger.Metadata = [:]
            var logLevel: Logger.Level = .warning
            subscript(metadataKey key: String) -> Logger.Metadata.Value? {
                get { metadata[key] }
                set { metadata[key] = newValue }
            }
            func log(event: LogEvent) {
                sink.messages.withLock { $0.append("\(event.level): \(event.message)") }
            }
        }
    }

    @Test("opening the store (schema, first queries) logs no warning: the pool runs before the first lease")
    func openLogsNoWarning() async throws {
        try await PostgresTestDatabase.withDatabase { location in
            for _ in 0..<5 {
                let warnings = Warnings()
                let store = try await PostgresStore.open(location, logger: warnings.logger)
                _ = try await store.boards()
                try await store.close()
                let logged = warnings.messages.withLock { $0 }
                #expect(logged.isEmpty, "\(logged)")
            }
        }
    }
    @Test("a login the database refuses is said at once, not after the wait for a connection")
    func aRefusedLoginIsNamed() async throws {
        try await PostgresTestDatabase.withDatabase { location in
            var wrong = location
            wrong.password = "not-the-password"
            // Without the check the schema migration's wait for a connection (a minute) would run out first.
            let configuration = PostgresStore.Configuration()
            do {
                let store = try await PostgresStore.open(wrong, configuration: configuration, logger: Logger(label: "test"))
                try await store.close()
                Issue.record("a wrong password opened the store")
            } catch let error as StoreError {
                #expect(error.code == .io)
                #expect(error.description.contains("password authentication failed"), "\(error)")
                #expect(!error.description.contains("not-the-password"), "\(error)")
            }
            var unknown = location
            unknown.database = "no_such_database"
            do {
                let store = try await PostgresStore.open(unknown, configuration: configuration, logger: Logger(label: "test"))
                try await store.close()
                Issue.record("a database that does not exist opened")
            } catch let error as StoreError {
                #expect(error.description.contains("3D000"), "\(error)")
            }
            // Nothing listening: said in words, not as postgres-nio's error code.
            var closed = location
            closed.port = try LoopbackPort.closed()
            do {
                let connection = try await PostgresStore.dedicatedConnection(to: closed, "connect", logger: Logger(label: "test"))
                try await connection.close()
                Issue.record("a closed port let us in")
            } catch let error as StoreError {
                #expect(
                    error.message == "connect: connection refused (nothing listens on that port: is PostgreSQL running there?)",
                    "\(error)")
            }
        }
    }
}
