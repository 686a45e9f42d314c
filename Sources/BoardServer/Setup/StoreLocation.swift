import BoardStore
import Foundation
import Logging

/// Where `corkd` keeps boards, users and tokens: SQLite in the data directory (the default), or one PostgreSQL
/// database that several nodes share (`--store postgres://USER@HOST:PORT/DB`, or `$CORKD_STORE`).
///
/// Either way the data directory keeps the certificate, `owner.url` and `listen.json`.
public enum StoreLocation: Hashable, Sendable, CustomStringConvertible {
    /// `corkd.sqlite` in the data directory.
    case dataDirectory
    /// A PostgreSQL database.
    case postgres(PostgresLocation)

    /// The location `--store` (or `$CORKD_STORE`) names: nil, empty or `sqlite` is the data directory, anything
    /// else must be a `postgres://` URL (its password may come from `$PGPASSWORD`). The message of a bad URL never
    /// contains its password.
    public static func parse(
        _ text: String?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ServerError) -> StoreLocation {
        guard let text, !text.isEmpty, text != "sqlite" else { return .dataDirectory }
        do {
            return .postgres(try PostgresLocation.parse(text, environment: environment))
        } catch {
            throw ServerError(.configuration, error.message)
        }
    }

    /// `sqlite` or the PostgreSQL URL without its password.
    public var description: String {
        switch self {
        case .dataDirectory: "sqlite"
        case .postgres(let location): location.description
        }
    }

    /// Opens (creating or migrating) the store; `eventJSON` as in the stores' configurations. `guest`: a server may
    /// be serving the store meanwhile (SQLite: `SQLiteStore.Configuration.guest`).
    func open(
        directory: URL, eventJSON: (any EventJSON)?, guest: Bool = false, logger: Logger
    ) async throws(StoreError) -> any AdminStore {
        try await openWithFeatures(directory: directory, eventJSON: eventJSON, guest: guest, logger: logger).store
    }

    /// `open`, with what the store can do beyond ``BoardStore`` (known here, where its type is).
    func openWithFeatures(
        directory: URL, eventJSON: (any EventJSON)?, guest: Bool = false, logger: Logger
    ) async throws(StoreError) -> (store: any AdminStore, features: StoreFeatures) {
        switch self {
        case .dataDirectory:
            let store = try await SQLiteStore.open(
                directory: directory, configuration: SQLiteStore.Configuration(eventJSON: eventJSON, guest: guest),
                logger: logger)
            return (store, .none)
        case .postgres(let location):
            let store = try await PostgresStore.open(
                location, configuration: PostgresStore.Configuration(eventJSON: eventJSON), logger: logger)
            return (store, .sharedBy(store))
        }
    }

    /// Where the store is, for messages: the data directory's path or the database's URL (no password).
    func name(directory: URL) -> String {
        switch self {
        case .dataDirectory: directory.path
        case .postgres(let location): location.description
        }
    }

    /// Takes the lock that says no server serves this store, without waiting; nil when a server serves it (it applies
    /// admin commands). SQLite: the data directory's `flock`; PostgreSQL: the serving lock taken exclusive.
    func tryExclusiveLock(directory: URL, logger: Logger) async throws(ServerError) -> ServingLock? {
        switch self {
        case .dataDirectory:
            return try DataDirectoryLock.tryAcquire(in: directory).map(ServingLock.directory)
        case .postgres(let location):
            do {
                return try await PostgresServingLock.tryExclusive(at: location, logger: logger).map(ServingLock.database)
            } catch {
                throw ServerError(.storage, "cannot use the store \(location): \(error.message)")
            }
        }
    }

    /// SQLite: takes the data directory's `flock` (one server per directory; waits up to `patience` for an admin
    /// command to let go). PostgreSQL: nil (its lock is taken once the store is open, see `servingLock`).
    func directoryLock(directory: URL, patience: Duration) async throws -> ServingLock? {
        guard self == .dataDirectory else { return nil }
        return .directory(try await DataDirectoryLock.acquire(in: directory, patience: patience))
    }

    /// Takes the lock a serving node holds for its lifetime. SQLite: the data directory's `flock` (one server per
    /// directory; waits up to `patience` for an admin command to let go); PostgreSQL: the serving lock shared (every
    /// node holds it; waits while an admin command holds it exclusive).
    func servingLock(directory: URL, patience: Duration, logger: Logger) async throws -> ServingLock {
        switch self {
        case .dataDirectory:
            return .directory(try await DataDirectoryLock.acquire(in: directory, patience: patience))
        case .postgres(let location):
            do {
                return .database(try await PostgresServingLock.holdShared(at: location, logger: logger))
            } catch {
                throw ServerError(.storage, "cannot take the serving lock on \(location): \(error.message)")
            }
        }
    }
}

/// The lock a serving node holds (shared with other nodes on PostgreSQL), or an admin command that found no node
/// serving holds (exclusive) while it applies its commands itself.
public enum ServingLock: Sendable {
    /// The data directory's `flock` (SQLite).
    case directory(DataDirectoryLock)
    /// The database's advisory lock (PostgreSQL).
    case database(PostgresServingLock)

    /// Lets go of the lock (a process that ends lets go too, `kill -9` included).
    public func release() async {
        switch self {
        case .directory(let lock): lock.unlock()
        case .database(let lock): await lock.release()
        }
    }
}
