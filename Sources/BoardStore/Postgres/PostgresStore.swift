import BoardCore
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO

/// The shared store: one PostgreSQL database that several `corkd` nodes use at once (`corkd --store postgres://…`).
///
/// The same contract as `SQLiteStore`: every write returns once PostgreSQL has committed it (`synchronous_commit`
/// is left on, so a commit is on disk), a failed write changes nothing, and each board's seqs follow its head with
/// no gap. The schema is created and migrated by `open`, under an advisory lock, so two nodes starting at once
/// migrate it once. Connections come from a postgres-nio `PostgresClient` pool that runs for the life of the store.
public struct PostgresStore: AdminStore {
    /// Where the database is (its description never shows the password).
    public let location: PostgresLocation
    /// The settings the store was opened with.
    public let configuration: Configuration
    let client: PostgresClient
    let runner: ClientRunner
    let logger: Logger

    /// Connects, creates or migrates the schema, and returns the store; `.io` when the database cannot be reached
    /// or refuses the login (the message says which), `.corrupt` when the schema is newer than this build knows.
    public static func open(
        _ location: PostgresLocation, configuration: Configuration = Configuration(), logger: Logger
    ) async throws(StoreError) -> PostgresStore {
        var settings = PostgresClient.Configuration(
            host: location.host, port: location.port, username: location.user, password: location.password,
            database: location.database, tls: location.tls == .require ? .require(.makeClientConfiguration()) : .disable)
        settings.options.maximumConnections = configuration.maximumConnections
        settings.options.connectTimeout = configuration.connectTimeout
        // A login the database refuses is an operator's mistake no retry mends, and a database nothing answers for
        // is down: both said at once. Through the pool they would only show as "no connection" a minute later.
        if let refusal = await loginRefusal(location, logger: logger) { throw refusal }
        let client = PostgresClient(configuration: settings, backgroundLogger: driverLogger(logger))
        let store = PostgresStore(
            location: location, configuration: configuration, client: client, runner: ClientRunner(client),
            logger: logger)
        do {
            try await store.migrate()
        } catch {
            await store.runner.stop()
            throw error
        }
        return store
    }

    /// `logger` for postgres-nio itself: its warnings and errors. Its info lines repeat, with the driver's raw error,
    /// every failed connection attempt while the database is down, which the store's own lines already say in words.
    static func driverLogger(_ logger: Logger) -> Logger {
        var quieter = logger
        quieter.logLevel = max(logger.logLevel, .warning)
        return quieter
    }

    /// Why the store cannot open now, said at once: the database refuses this login for good (class 28: the user or
    /// its password; 3D000: no such database), or nothing answers at its address (refused, unreachable, timed out:
    /// `.io`; a service manager starts corkd again). Nil when it let us in, or answered with another error (too many
    /// connections, starting up), which `open` waits out.
    static func loginRefusal(_ location: PostgresLocation, logger: Logger) async -> StoreError? {
        do {
            let connection = try await connect(to: location, logger: logger)
            try? await connection.close()
            return nil
        } catch let psql as PSQLError where psql.code == .server {
            guard let state = psql.serverInfo?[.sqlState], state.hasPrefix("28") || state == "3D000" else { return nil }
            return StoreError(postgres: psql, context: "connect")
        } catch {
            return StoreError(postgres: error, context: "connect")
        }
    }

    /// Closes every connection; later calls on this store (or its copies) fail with `.io`.
    public func close() async throws(StoreError) {
        await runner.stop()
    }
}

extension PostgresStore {
    /// How the PostgreSQL store behaves. Every field has a documented default.
    public struct Configuration: Sendable {
        /// How many snapshots are kept per board. Default: 2.
        public var snapshotsKept: Int
        /// How ops and activity records become the JSON text of the `events` table (see
        /// `SQLiteStore.Configuration.eventJSON`). Default: nil, Foundation's `JSONEncoder` with sorted keys.
        public var eventJSON: (any EventJSON)?
        /// The most connections this node opens to the database. Default: 8.
        public var maximumConnections: Int
        /// How long opening a connection may take before the call fails with `.io`. Default: 5 seconds.
        public var connectTimeout: Duration
        /// How long a read or write waits for a pooled connection before it fails with `.io` ("cannot reach the
        /// database"): the bound on how long a node that lost its database keeps a client waiting. Default: 5 seconds.
        public var leaseTimeout: Duration

        /// Makes a configuration; every argument has its documented default.
        public init(
            snapshotsKept: Int = 2, eventJSON: (any EventJSON)? = nil, maximumConnections: Int = 8,
            connectTimeout: Duration = .seconds(5), leaseTimeout: Duration = .seconds(5)
        ) {
            self.leaseTimeout = leaseTimeout
            self.snapshotsKept = max(1, snapshotsKept)
            self.eventJSON = eventJSON
            self.maximumConnections = max(1, maximumConnections)
            self.connectTimeout = connectTimeout
        }
    }
}

/// Runs the client's pool for as long as the store is open (postgres-nio's client does its work inside `run()`).
/// Shared by every copy of the store, so closing one closes them all.
final class ClientRunner: Sendable {
    private let task: Task<Void, Never>

    init(_ client: PostgresClient) {
        // The pool's lifetime is the store's, which is not a scope: opened by `open`, ended by `close`. The task
        // starts at once, on this thread, up to its first suspension: `run()` marks the client running before it
        // suspends, so no lease (the schema's first query comes right after) can come first, which postgres-nio
        // warns about ("`PostgresClient.run()` hasn't been called yet") and a plain `Task` let happen at every start.
        task = Task.immediate { await client.run() }
    }

    func stop() async {
        task.cancel()
        await task.value
    }
}
