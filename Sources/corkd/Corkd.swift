import ArgumentParser
import BoardCore
import BoardServer
import BoardStore
import BoardTransport
import BoardWire
import Foundation
import Logging
import ServiceLifecycle

/// `corkd`: the Corkboard server. Only this executable reads argv and the environment (STYLE.md 9).
@main
struct Corkd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "corkd",
        abstract: "The Corkboard server: authoritative kanban boards over TLS, one JSON object per line.",
        subcommands: [Serve.self, Invite.self, Revoke.self],
        defaultSubcommand: Serve.self)
}

/// Options every subcommand shares.
struct DataOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "The data directory (store, certificate, owner.url).")
    var dataDirectory: String = "corkd-data"

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: String = "info"

    var url: URL { URL(fileURLWithPath: dataDirectory) }

    func logger(_ label: String) -> Logger {
        var logger = Logger(label: label)
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        return logger
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the server (the default).")

    @OptionGroup var data: DataOptions

    @Option(help: "The address to listen on.")
    var host: String = "127.0.0.1"

    @Option(help: "The TCP port to listen on.")
    var port: Int = 7420

    @Option(help: "A PEM certificate chain (default: a self-signed certificate in the data directory).")
    var cert: String?

    @Option(help: "The PEM private key for --cert.")
    var key: String?

    @Option(name: .customLong("rate"), help: "Ops per second each user may send (rate_ops_per_s); raise it for bots and load tests.")
    var rate: Int = 20

    @Option(name: .customLong("burst"), help: "Ops a user may send at once before the rate applies (rate_burst).")
    var burst: Int = 40

    @Option(name: .customLong("connections-per-user"), help: "Connections one user may hold (connections_per_user).")
    var connectionsPerUser: Int = 20

    @Flag(name: .customLong("exit-with-parent"), help: .hidden)
    var exitWithParent = false

    func run() async throws {
        LoggingSystem.bootstrap { label in StreamLogHandler.standardError(label: label) }
        let logger = data.logger("corkd")
        var configuration = ServerConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.dataDirectory = data.url
        configuration.certificatePath = cert
        configuration.keyPath = key
        configuration.limits.rateOpsPerS = rate
        configuration.limits.rateBurst = burst
        configuration.limits.connectionsPerUser = connectionsPerUser
        if let name = ProcessInfo.processInfo.hostName as String?, !name.isEmpty, !configuration.certificateHosts.contains(name) {
            configuration.certificateHosts.append(name)
        }
        let setup: ServerSetup
        do {
            setup = try await ServerSetup.prepare(configuration, logger: logger)
        } catch {
            FileHandle.standardError.write(Data("corkd: \(error)\ncorkd: refusing to serve.\n".utf8))
            throw ExitCode(2)
        }
        let directory = data.url
        let settings = configuration
        let ownerToken = setup.ownerToken
        let fingerprint = setup.fingerprint
        let server = BoardServer(
            configuration: configuration, store: setup.store, tls: setup.tls, logger: logger,
            onListening: { address in
                let port = address.port ?? settings.port
                try? ServerSetup.writeListenAddress(host: settings.host, port: port, in: directory)
                var lines = ["corkd listening on \(settings.host):\(port)", "certificate fingerprint \(fingerprint)"]
                if let ownerToken {
                    let url = InviteURL(
                        host: settings.host, port: port, board: settings.defaultBoard, token: ownerToken,
                        fingerprint: fingerprint.description)
                    try? ServerSetup.writeOwnerURL(url, in: directory)
                    lines.append("owner invite URL (also in \(directory.path)/owner.url):")
                    lines.append("  \(url)")
                } else {
                    lines.append("owner invite URL: \(directory.path)/owner.url")
                }
                // Written and flushed at once: scripts and supervisors read it from a pipe.
                FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
            })
        if exitWithParent { Self.watchParent() }
        let group = ServiceGroup(
            configuration: .init(services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
        // Every board has committed; checkpoint the WAL and close the store.
        do {
            try await setup.store.close()
        } catch {
            logger.warning("the store did not close cleanly", metadata: ["error": "\(error)"])
        }
    }
}

extension Serve {
    /// `--exit-with-parent` (used by `cork-load --spawn`): shuts down as on SIGTERM once the parent process is
    /// gone, so that a load generator killed with SIGKILL does not leave its server behind.
    static func watchParent() {
        let parent = getppid()
        Thread.detachNewThread {
            while getppid() == parent { Thread.sleep(forTimeInterval: 0.5) }
            kill(getpid(), SIGTERM)
        }
    }
}

struct Invite: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print an invite URL for a user, creating the user and the board membership.",
        discussion: "Works whether or not the server is running: the membership is applied by the server within a second.")

    @OptionGroup var data: DataOptions

    @Option(help: "The user name.")
    var user: String

    @Option(help: "owner, editor, viewer or bot.")
    var role: String = "editor"

    @Option(help: "The board.")
    var board: String = "main"

    @Option(help: "The host the URL names (default: where the server last listened).")
    var host: String?

    @Option(help: "The port the URL names (default: where the server last listened).")
    var port: Int?

    func run() async throws {
        let logger = data.logger("corkd")
        guard let user = UserID(validating: self.user) else { throw ValidationError("--user must be 1–64 of A–Z a–z 0–9 _ . -") }
        guard let role = Role(rawValue: self.role) else { throw ValidationError("--role must be owner, editor, viewer or bot") }
        guard let board = BoardID(validating: self.board) else { throw ValidationError("--board is not a board id") }
        let store = try await SQLiteStore.open(directory: data.url, logger: logger)
        let now = WallClock().now()
        _ = try await store.ensureUser(user, displayName: "")
        let token = try await store.issueToken(for: user, expiresAt: nil, now: now)
        _ = try await store.enqueue(.addMember(board: board, user: user, role: role), now: now)
        let listen = ServerSetup.readListenAddress(in: data.url)
        let fingerprint = try? SelfSignedCertificate.loadOrCreate(in: data.url, hosts: ["localhost"]).fingerprint
        let url = InviteURL(
            host: host ?? listen?.host ?? "127.0.0.1", port: port ?? listen?.port ?? InviteURL.defaultPort, board: board,
            token: token, fingerprint: fingerprint?.description)
        print(url)
    }
}

struct Revoke: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Revoke every token of a user; a running server closes their sessions within a second.")

    @OptionGroup var data: DataOptions

    @Option(help: "The user name.")
    var user: String

    func run() async throws {
        let logger = data.logger("corkd")
        guard let user = UserID(validating: self.user) else { throw ValidationError("--user is not a user name") }
        let store = try await SQLiteStore.open(directory: data.url, logger: logger)
        let now = WallClock().now()
        let count = try await store.revokeTokens(of: user, now: now)
        _ = try await store.enqueue(.revoke(user: user), now: now)
        print("revoked \(count) token(s) of \(user)")
    }
}
