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
    /// The opened store.
    public var store: SQLiteStore
    /// The server's TLS context.
    public var tls: NIOSSLContext
    /// The certificate's fingerprint (what invite URLs pin).
    public var fingerprint: Fingerprint
    /// Whether this start created the store (first start).
    public var firstStart: Bool
    /// On first start, the owner's token (shown once, in the owner's invite URL).
    public var ownerToken: String?
    /// The host invite URLs name (`ServerConfiguration.advertisedHost`).
    public var advertisedHost: String
    /// The data directory's lock, held for as long as this value lives: while it is held, admin commands hand
    /// their work to this server, and no other server starts on the directory.
    public var lock: DataDirectoryLock

    /// Opens or creates everything in `configuration.dataDirectory`.
    ///
    /// A store that fails `PRAGMA quick_check` stops here with a clear message; the file is never touched.
    /// `machineHostName` is what a wildcard bind advertises without `publicHost`.
    public static func prepare(
        _ configuration: ServerConfiguration, clock: any ServerClock = WallClock(),
        machineHostName: String = ProcessInfo.processInfo.hostName, logger: Logger
    ) async throws -> ServerSetup {
        let directory = configuration.dataDirectory
        let advertisedHost = configuration.advertisedHost(machineHostName: machineHostName)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ServerError(.configuration, "cannot create the data directory \(directory.path): \(error.localizedDescription)")
        }
        if let problem = DataDirectory.ownershipProblem(directory) { throw ServerError(.configuration, problem) }
        // Every board and token hash is in here: nothing may be open to other local users.
        for correction in DataDirectory.secure(directory) {
            guard correction.failure == nil else {
                throw ServerError(.configuration, "\(correction); fix it (chmod go= …) or run corkd as the owner")
            }
            logger.warning("\(correction)")
        }
        // One server per directory; an admin command may hold the lock for a moment, so wait a little for it.
        let lock = try await DataDirectoryLock.acquire(in: directory, patience: .seconds(5))
        // The certificate first: a bad --cert must not cost the owner token that a first start shows only once.
        var hosts = configuration.certificateHosts
        if !hosts.contains(advertisedHost) { hosts.append(advertisedHost) }
        let certificate = try ServerCertificate.forServing(
            certificatePath: configuration.certificatePath, keyPath: configuration.keyPath, directory: directory,
            hosts: hosts)
        let fingerprint = certificate.fingerprint
        if certificate.created {
            logger.info("created a self-signed certificate", metadata: ["fingerprint": "\(fingerprint)", "hosts": "\(hosts)"])
        }
        let tls = try TLSSetup.serverContext(certificateChain: certificate.chain, privateKey: certificate.key)
        let store: SQLiteStore
        do {
            store = try await SQLiteStore.open(
                directory: directory, configuration: SQLiteStore.Configuration(eventJSON: WireEventJSON()), logger: logger)
        } catch {
            throw ServerError(.storage, "cannot open the store in \(directory.path): \(error.message)")
        }
        var ownerToken: String?
        let boards = try await store.boards()
        let firstStart = boards.isEmpty
        if firstStart {
            let owner = configuration.ownerName
            _ = try await store.ensureUser(owner, displayName: "")
            _ = try await store.createBoard(Board(id: configuration.defaultBoard, name: "Main", owner: owner))
            ownerToken = try await store.issueToken(for: owner, expiresAt: nil, now: clock.now())
            logger.info("first start: created board \(configuration.defaultBoard) owned by \(owner)")
        }
        // The first-start owner is the server's administrator (`welcome.role` `owner`), also in older stores.
        _ = try await store.ensureAdministrator(configuration.ownerName)
        return ServerSetup(
            store: store, tls: tls, fingerprint: fingerprint, firstStart: firstStart, ownerToken: ownerToken,
            advertisedHost: advertisedHost, lock: lock)
    }

    /// The owner's invite URL's file in the data directory.
    public static let ownerURLFileName = "owner.url"

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
            logger.info("owner.url now names \(host):\(port) and the certificate served")
        } catch {
            logger.warning("cannot update \(file.path)", metadata: ["error": "\(error)"])
        }
    }
}

/// The store's event JSON through the wire's hand-written encoder (the same trees as `JSONEncoder`, several times
/// cheaper; it was 15 % of corkd's CPU under load with Foundation's encoder).
struct WireEventJSON: EventJSON {
    func op(_ op: Op) -> String { LineWriter.opJSON(op) }
    func activity(_ activity: Activity) -> String { LineWriter.activityJSON(activity) }
}
