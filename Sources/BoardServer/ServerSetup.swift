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

    /// Opens or creates everything in `configuration.dataDirectory`.
    ///
    /// A store that fails `PRAGMA quick_check` stops here with a clear message; the file is never touched.
    public static func prepare(_ configuration: ServerConfiguration, clock: any ServerClock = WallClock(), logger: Logger) async throws -> ServerSetup {
        let directory = configuration.dataDirectory
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ServerError(.configuration, "cannot create the data directory \(directory.path): \(error.localizedDescription)")
        }
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
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        let fingerprint: Fingerprint
        if let certificatePath = configuration.certificatePath {
            guard let keyPath = configuration.keyPath else {
                throw ServerError(.configuration, "--cert needs --key")
            }
            do {
                chain = try NIOSSLCertificate.fromPEMFile(certificatePath)
                key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
            } catch {
                throw ServerError(.configuration, "cannot read the certificate or key: \(error)")
            }
            guard let leaf = chain.first else { throw ServerError(.configuration, "\(certificatePath) holds no certificate") }
            fingerprint = try Fingerprint(certificate: leaf)
        } else {
            let loaded = try SelfSignedCertificate.loadOrCreate(in: directory, hosts: configuration.certificateHosts)
            chain = loaded.chain
            key = loaded.key
            fingerprint = loaded.fingerprint
            if loaded.created { logger.info("created a self-signed certificate", metadata: ["fingerprint": "\(fingerprint)"]) }
        }
        let tls = try TLSSetup.serverContext(certificateChain: chain, privateKey: key)
        return ServerSetup(store: store, tls: tls, fingerprint: fingerprint, firstStart: firstStart, ownerToken: ownerToken)
    }

    /// Writes `owner.url` (mode 0600) in the data directory.
    public static func writeOwnerURL(_ url: InviteURL, in directory: URL) throws {
        let file = directory.appendingPathComponent("owner.url")
        try Data((url.description + "\n").utf8).write(to: file, options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
    }

    /// Records where the server listens (`listen.json`), so `corkd invite` can print URLs that work.
    public static func writeListenAddress(host: String, port: Int, in directory: URL) throws {
        let file = directory.appendingPathComponent("listen.json")
        try Data(#"{"host":"\#(host)","port":\#(port)}"#.utf8).write(to: file, options: .atomic)
    }

    /// The address recorded by `writeListenAddress`, if any.
    public static func readListenAddress(in directory: URL) -> (host: String, port: Int)? {
        guard let data = try? Data(contentsOf: directory.appendingPathComponent("listen.json")),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let host = object["host"] as? String, let port = object["port"] as? Int
        else { return nil }
        return (host, port)
    }
}

/// The store's event JSON through the wire's hand-written encoder (the same trees as `JSONEncoder`, several times
/// cheaper; it was 15 % of corkd's CPU under load with Foundation's encoder).
struct WireEventJSON: EventJSON {
    func op(_ op: Op) -> String { LineWriter.opJSON(op) }
    func activity(_ activity: Activity) -> String { LineWriter.activityJSON(activity) }
}
