import BoardStore
import Foundation
import Logging
import NIOPosix
import PostgresNIO

/// A fresh PostgreSQL database per test, on the server `$CORKD_TEST_POSTGRES` names
/// (`postgres://USER:PASSWORD@127.0.0.1:5432/postgres`, a role that may `CREATE DATABASE`; `scripts/test-postgres`
/// prints one for Debian's cluster), or else on this test process's own throwaway cluster (`PostgresTestCluster`).
///
/// The PostgreSQL cases are skipped, with the reason printed, only when neither is possible (PostgreSQL is not
/// installed) and this is not CI; under CI (`$CI` set) they always run, and a missing PostgreSQL fails them.
public enum PostgresTestDatabase {
    /// The server's URL, if the environment gives one.
    public static var serverURL: String? {
        ProcessInfo.processInfo.environment["CORKD_TEST_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether tests should run their PostgreSQL cases: a server is named, PostgreSQL is installed (a cluster of
    /// our own), or this is CI (where they must run).
    public static let isEnabled: Bool = {
        if serverURL != nil || PostgresTestCluster.binaries != nil { return true }
        if ProcessInfo.processInfo.environment["CI"].map({ !$0.isEmpty && $0 != "false" }) == true { return true }
        FileHandle.standardError.write(
            Data("skipping the PostgreSQL tests: PostgreSQL is not installed (apt-get install postgresql) and CORKD_TEST_POSTGRES is not set\n".utf8))
        return false
    }()

    /// The server the test databases are made on.
    public static func server() async throws -> PostgresLocation {
        if let serverURL { return try PostgresLocation.parse(serverURL) }
        return try await PostgresTestCluster.server()
    }

    /// Creates a database with a random name, runs `body` with its location, then drops it (with any connections
    /// still open to it), whatever happens.
    public static func withDatabase<T>(_ body: (PostgresLocation) async throws -> T) async throws -> T {
        let server = try await server()
        let name = "corkd_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await administer(server, "CREATE DATABASE \(name)")
        var location = server
        location.database = name
        do {
            let result = try await body(location)
            try await administer(server, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
            return result
        } catch {
            try? await administer(server, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
            throw error
        }
    }

    /// Ends every backend of `location`'s database whose last statement was a `LISTEN` (a node's notification
    /// connection), as an operator's `pg_terminate_backend` or a database restart would; returns how many.
    /// How many backends of the database are listening (their last statement was a `LISTEN`).
    public static func listeners(on location: PostgresLocation) async throws -> Int {
        let (connection, logger) = try await connect(location)
        do {
            var found = 0
            for try await count in try await connection.query(
                """
                SELECT count(*)::bigint FROM pg_stat_activity
                WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()
                """, logger: logger
            ).decode(Int64.self) {
                found = Int(count)
            }
            try await connection.close()
            return found
        } catch {
            try? await connection.close()
            throw error
        }
    }

    public static func terminateListeners(on location: PostgresLocation) async throws -> Int {
        let (connection, logger) = try await connect(location)
        do {
            var ended = 0
            for try await count in try await connection.query(
                """
                SELECT count(*)::bigint FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()) AS ended
                """, logger: logger
            ).decode(Int64.self) {
                ended = Int(count)
            }
            try await connection.close()
            return ended
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// Runs one statement on the server's own database with a single connection.
    static func administer(_ server: PostgresLocation, _ sql: String) async throws {
        let (connection, logger) = try await connect(server)
        do {
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// One connection to `location`'s database, and a logger that stays quiet.
    static func connect(_ location: PostgresLocation) async throws -> (PostgresConnection, Logger) {
        var logger = Logger(label: "corkboard.tests.postgres")
        logger.logLevel = .critical
        let configuration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.user, password: location.password,
            database: location.database, tls: .disable)
        let connection = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 1, logger: logger)
        return (connection, logger)
    }
}
