import BoardCore
import BoardStore
import BoardTransport
import BoardWire
import Foundation
import Logging
import NIOSSL

/// Everything `corkd` prepares before it listens: the data directory, the store, the certificate, and on first
/// start the default board, its owner and the owner's token.
public struct ServerSetup: Sendable {
    /// The opened store (SQLite in the data directory, or PostgreSQL).
    public var store: any AdminStore
    /// What the store can do beyond ``BoardStore`` (PostgreSQL: serve several nodes).
    public var features: StoreFeatures
    /// The server's TLS context.
    public var tls: NIOSSLContext
    /// The certificate's fingerprint (what invite URLs pin).
    public var fingerprint: Fingerprint
    /// Whether this start created the store (first start).
    public var firstStart: Bool
    /// On first start, the owner's token (shown once, in the owner's invite URL); also on a later start on SQLite
    /// when the data directory has no `owner.url` (a first start that failed before it listened left none).
    public var ownerToken: String?
    /// The host invite URLs name (`ServerConfiguration.advertisedHost`).
    public var advertisedHost: String
    /// The serving lock, held until `release()`: while it is held, admin commands hand their work to the servers.
    /// SQLite: the data directory's `flock` (no other server starts on the directory); PostgreSQL: the database's
    /// advisory lock, held shared by every node.
    public var lock: ServingLock

    /// Opens or creates everything in `configuration.dataDirectory`, and the store `store` names (by default
    /// SQLite in that directory).
    ///
    /// A store that fails `PRAGMA quick_check` stops here with a clear message; the file is never touched.
    /// `machineHostName` is what a wildcard bind advertises without `publicHost`. On PostgreSQL several nodes may
    /// start at once on a fresh database: exactly one makes the first start (board `main`, its owner, the owner's
    /// token); the others find it made.
    public static func prepare(
        _ configuration: ServerConfiguration, store location: StoreLocation = .dataDirectory,
        clock: any ServerClock = WallClock(), machineHostName: String = ProcessInfo.processInfo.hostName, logger: Logger
    ) async throws -> ServerSetup {
        let directory = configuration.dataDirectory
        let advertisedHost = configuration.advertisedHost(machineHostName: machineHostName)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ServerError(.configuration, "cannot create the data directory \(directory.path): \(error.localizedDescription)")
        }
        if let problem = DataDirectory.ownershipProblem(directory) { throw ServerError(.configuration, problem) }
        if let problem = DataDirectory.writabilityProblem(directory) { throw ServerError(.configuration, problem) }
        if let problem = DataDirectory.fileAccessProblem(
            directory, names: FirstStart.madeFiles(storeInDirectory: location == .dataDirectory))
        {
            throw ServerError(.configuration, problem)
        }
        // Every board and token hash is in here: nothing may be open to other local users.
        for correction in DataDirectory.secure(directory) {
            guard correction.failure == nil else {
                throw ServerError(.configuration, "\(correction); \(DataDirectory.ownershipAdvice(correction.path))")
            }
            logger.warning("\(correction)")
        }
        // SQLite: one server per directory; an admin command may hold the lock for a moment, so wait a little for it.
        let directoryLock = try await location.directoryLock(directory: directory, patience: .seconds(5))
        // A fresh directory is marked until its first start is done, so a start killed half way is made again.
        let firstStartMarked: Bool
        do {
            firstStartMarked = try FirstStart.begin(in: directory, storeInDirectory: location == .dataDirectory, logger: logger)
        } catch {
            await directoryLock?.release()
            throw error
        }
        // The certificate first: a bad --cert must not cost the owner token that a first start shows only once.
        let hosts = configuration.certificateHosts + (configuration.certificateHosts.contains(advertisedHost) ? [] : [advertisedHost])
        let certificate: ServerCertificate.Served
        let tls: NIOSSLContext
        do {
            certificate = try ServerCertificate.forServing(
                certificatePath: configuration.certificatePath, keyPath: configuration.keyPath, directory: directory,
                hosts: hosts)
            tls = try TLSSetup.serverContext(certificateChain: certificate.chain, privateKey: certificate.key)
        } catch {
            await directoryLock?.release()
            throw error
        }
        if certificate.created {
            logger.info("created a self-signed certificate", metadata: ["fingerprint": "\(certificate.fingerprint)", "hosts": "\(hosts)"])
        }
        let (store, features, lock) = try await openStore(
            location, directory: directory, directoryLock: directoryLock, logger: logger)
        do {
            var (made, ownerToken) = try await firstStart(store, configuration, clock: clock, logger: logger)
            if !made, location == .dataDirectory, !FileManager.default.fileExists(
                atPath: directory.appendingPathComponent(ownerURLFileName).path)
            {
                // One SQLite node: no other data directory can hold the owner's URL. The first start stopped before
                // it listened (a taken port) or the file was removed; either way nobody has the token, so make one.
                do {
                    ownerToken = try await store.issueToken(for: configuration.ownerName, expiresAt: nil, now: clock.now())
                    logger.notice("owner.url was missing: made a new owner token; the owner URL is written once corkd listens")
                } catch {
                    logger.warning(
                        "owner.url is missing and no owner token could be made; `corkd invite --user \(configuration.ownerName) --role owner` makes one",
                        metadata: ["error": "\(error.message)"])
                }
            }
            if firstStartMarked { try FirstStart.finish(in: directory) }
            return ServerSetup(
                store: store, features: features, tls: tls, fingerprint: certificate.fingerprint, firstStart: made, ownerToken: ownerToken,
                advertisedHost: advertisedHost, lock: lock)
        } catch {
            await lock.release()
            try? await store.close()
            throw error
        }
    }

    /// Opens the store and returns it with the serving lock: the data directory's lock already taken (SQLite), or
    /// PostgreSQL's shared lock, taken here (it waits while an admin command applies its commands itself). On
    /// failure nothing is left open or held.
    private static func openStore(
        _ location: StoreLocation, directory: URL, directoryLock: ServingLock?, logger: Logger
    ) async throws -> (any AdminStore, StoreFeatures, ServingLock) {
        let store: any AdminStore
        let features: StoreFeatures
        if case .postgres = location {
            // The open waits for a database that does not answer (up to a minute): say so before, not only after.
            logger.info("opening the store", metadata: ["store": "\(location.name(directory: directory))"])
        }
        do {
            (store, features) = try await location.openWithFeatures(
                directory: directory, eventJSON: WireEventJSON(), logger: logger)
        } catch {
            await directoryLock?.release()
            let code: ServerError.Code
            switch (error.code, location) {
            case (.corrupt, _): code = .damaged
            case (.io, .postgres): code = .unreachable
            default: code = .storage
            }
            throw ServerError(code, "cannot open the store in \(location.name(directory: directory)): \(error.message)")
        }
        if let sqlite = store as? SQLiteStore {
            logger.info(
                "store opened", metadata: ["path": "\(sqlite.path)", "check": "\(sqlite.openCheck.logDescription)"])
        }
        if let directoryLock { return (store, features, directoryLock) }
        do {
            return (
                store, features, try await location.servingLock(directory: directory, patience: .seconds(5), logger: logger)
            )
        } catch {
            try? await store.close()
            throw error
        }
    }

    /// On an empty store, creates the default board, its owner and the owner's token; returns whether this start
    /// did (another node starting at the same instant on the same database may have: then this one finds the
    /// board taken and is not the first start). Makes the owner the administrator either way.
    private static func firstStart(
        _ store: any AdminStore, _ configuration: ServerConfiguration, clock: any ServerClock, logger: Logger
    ) async throws -> (Bool, String?) {
        let made: Bool
        let ownerToken: String?
        if try await store.boards().isEmpty {
            ownerToken = try await createDefaultBoard(store, configuration, now: clock.now(), logger: logger)
            made = ownerToken != nil
        } else {
            (made, ownerToken) = (false, nil)
        }
        // The first-start owner is the server's administrator (`welcome.role` `owner`), also in older stores.
        _ = try await store.ensureAdministrator(configuration.ownerName)
        return (made, ownerToken)
    }

    /// Creates the owner, the default board and the owner's token; nil when another node created the board first.
    private static func createDefaultBoard(
        _ store: any AdminStore, _ configuration: ServerConfiguration, now: Timestamp, logger: Logger
    ) async throws -> String? {
        let owner = configuration.ownerName
        _ = try await store.ensureUser(owner, displayName: "")
        do {
            _ = try await store.createBoard(Board(id: configuration.defaultBoard, name: "Main", owner: owner))
        } catch {
            guard error.code == .duplicate else { throw error }
            logger.info("another node made the first start at the same time; its data directory has owner.url")
            return nil
        }
        let token = try await store.issueToken(for: owner, expiresAt: nil, now: now)
        logger.info("first start: created board \(configuration.defaultBoard) owned by \(owner)")
        return token
    }

    /// Lets go of the serving lock and closes the store (the server has stopped).
    public func release() async {
        try? await store.close()
        await lock.release()
    }

    /// The owner's invite URL's file in the data directory.
    public static let ownerURLFileName = InviteURL.ownerFileName

    /// Writes `owner.url` (mode 0600) in the data directory.
    public static func writeOwnerURL(_ url: InviteURL, in directory: URL) throws {
        let file = directory.appendingPathComponent(ownerURLFileName)
        try Data((url.description + "\n").utf8).write(to: file, options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
    }

    /// Points an existing `owner.url` at where the server now listens and the certificate it now serves (the
    /// token and board stay); leaves a missing or unreadable file alone.
    public static func refreshOwnerURL(host: String, port: Int, fingerprint: Fingerprint, in directory: URL, logger: Logger) {
        let file = directory.appendingPathComponent(ownerURLFileName)
        guard let text = try? String(contentsOf: file, encoding: .utf8),
            var url = InviteURL(text.trimmingCharacters(in: .whitespacesAndNewlines))
        else { return }
        let old = url
        url.host = host
        url.port = port
        if url.fingerprint != nil { url.fingerprint = fingerprint.description }
        guard url != old else { return }
        do {
            try writeOwnerURL(url, in: directory)
            logger.info("updated owner.url: it names \(host):\(port) and the fingerprint of the certificate this server serves")
        } catch {
            logger.warning("cannot update \(file.path)", metadata: ["error": "\(error)"])
        }
    }
}

/// The store's event JSON through the wire's hand-written encoder: the same trees as `JSONEncoder`, several times
/// cheaper (Foundation's encoder would be about 15 % of corkd's CPU under load).
struct WireEventJSON: EventJSON {
    func op(_ op: Op) -> String { LineWriter.opJSON(op) }
    func activity(_ activity: Activity) -> String { LineWriter.activityJSON(activity) }
}
