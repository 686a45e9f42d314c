import BoardStore
import Foundation
import Logging
import NIOPosix
import PostgresNIO

/// A fresh PostgreSQL database per test, on the server `$CORKD_TEST_POSTGRES` names
/// (`postgres://USER:PASSWORD@127.0.0.1:5432/postgres`, a role that may `CREATE DATABASE`; `.ci/run` starts one).
///
/// Without that variable the PostgreSQL cases are left out of a local run; under CI (`$CI` set) they are required,
/// and a missing server fails them instead of skipping them.
public enum PostgresTestDatabase {
    /// The server's URL, if the environment gives one.
    public static var serverURL: String? {
        ProcessInfo.processInfo.environment["CORKD_TEST_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether tests should run their PostgreSQL cases: a server is named, or this is CI (where it must be).
    public static var isEnabled: Bool {
        serverURL != nil || ProcessInfo.processInfo.environment["CI"].map { !$0.isEmpty } == true
    }

    /// Creates a database with a random name, runs `body` with its location, then drops it (with any connections
    /// still open to it), whatever happens.
    public static func withDatabase<T>(_ body: (PostgresLocation) async throws -> T) async throws -> T {
        guard let serverURL else {
            throw TestFailure("CORKD_TEST_POSTGRES is not set: start PostgreSQL (see .ci/run) and name it there")
        }
        let server = try PostgresLocation.parse(serverURL)
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

    /// Runs one statement on the server's own database with a single connection.
    static func administer(_ server: PostgresLocation, _ sql: String) async throws {
        var logger = Logger(label: "corkboard.tests.postgres")
        logger.logLevel = .critical
        let configuration = PostgresConnection.Configuration(
            host: server.host, port: server.port, username: server.user, password: server.password,
            database: server.database, tls: .disable)
        let connection = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 1, logger: logger)
        do {
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
