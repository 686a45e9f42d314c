import Logging
import NIOPosix
import NIOSSL
import PostgresNIO

/// A session-level advisory lock on its own connection: held shared by every node that serves the database, taken
/// exclusive by an admin command that finds no node serving (then it applies its commands itself, as it does with
/// the data directory's `flock` on one node). The lock lives as long as the connection: a node that dies lets go.
public final class PostgresServingLock: Sendable {
    private let connection: PostgresConnection

    init(_ connection: PostgresConnection) {
        self.connection = connection
    }

    /// Lets go of the lock (closes its connection).
    public func release() async {
        try? await connection.close()
    }
}

extension PostgresServingLock {
    /// The advisory lock's key ("corkserv").
    static let key: Int64 = 0x636F_726B_7365_7276

    /// Holds the serving lock shared, for a node that serves; waits while an admin command holds it exclusive.
    public static func holdShared(at location: PostgresLocation, logger: Logger) async throws(StoreError) -> PostgresServingLock {
        let connection = try await PostgresStore.dedicatedConnection(to: location, "serving lock", logger: logger)
        do {
            try await connection.query("SELECT pg_advisory_lock_shared(\(key))", logger: logger)
        } catch {
            try? await connection.close()
            throw StoreError(postgres: error, context: "serving lock")
        }
        return PostgresServingLock(connection)
    }

    /// Takes the serving lock exclusive when no node holds it; nil when a node serves (it will apply the commands).
    public static func tryExclusive(at location: PostgresLocation, logger: Logger) async throws(StoreError) -> PostgresServingLock? {
        let connection = try await PostgresStore.dedicatedConnection(to: location, "serving lock", logger: logger)
        do {
            var taken = false
            for try await value in try await connection.query("SELECT pg_try_advisory_lock(\(key))", logger: logger)
                .decode(Bool.self)
            {
                taken = value
            }
            guard taken else {
                try? await connection.close()
                return nil
            }
            return PostgresServingLock(connection)
        } catch {
            try? await connection.close()
            throw StoreError(postgres: error, context: "serving lock")
        }
    }
}

extension PostgresStore {
    /// Holds the serving lock shared, for a node that serves; waits while an admin command holds it exclusive.
    public func holdServingLock() async throws(StoreError) -> PostgresServingLock {
        try await PostgresServingLock.holdShared(at: location, logger: logger)
    }

    /// Takes the serving lock exclusive when no node holds it; nil when a node serves (it will apply the commands).
    public func tryExclusiveServingLock() async throws(StoreError) -> PostgresServingLock? {
        try await PostgresServingLock.tryExclusive(at: location, logger: logger)
    }

    /// A connection of its own, outside the pool (session state such as advisory locks and LISTEN stays with it).
    func dedicatedConnection(_ what: String) async throws(StoreError) -> PostgresConnection {
        try await Self.dedicatedConnection(to: location, what, logger: logger)
    }

    /// A connection of its own to `location`, outside any pool.
    static func dedicatedConnection(to location: PostgresLocation, _ what: String, logger: Logger) async throws(StoreError)
        -> PostgresConnection
    {
        let configuration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.user, password: location.password,
            database: location.database,
            tls: location.tls == .require ? .require(try Self.tlsContext()) : .disable)
        do {
            return try await PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 0, logger: logger)
        } catch {
            throw StoreError(postgres: error, context: what)
        }
    }

    /// The client TLS context for `sslmode=require` (the system's trust roots).
    static func tlsContext() throws(StoreError) -> NIOSSLContext {
        do {
            return try NIOSSLContext(configuration: .makeClientConfiguration())
        } catch {
            throw StoreError(.io, "cannot set up TLS for the database: \(error)")
        }
    }
}
