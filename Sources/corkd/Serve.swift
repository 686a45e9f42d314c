import ArgumentParser
import BoardCore
import BoardServer
import BoardStore
import BoardTransport
import BoardWeb
import BoardWire
import BuildInfo
import Foundation
import Logging
import NIOPosix
import ServiceLifecycle

/// `corkd serve`: runs the server.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the server (the default).")

    @OptionGroup var data: DataOptions

    @OptionGroup(title: "Operating") var operating: OperatorOptions

    @OptionGroup(title: "Webhooks") var hookOptions: HookOptions

    @Option(help: "The address to listen on (0.0.0.0 or :: for every interface).")
    var host: String = "127.0.0.1"

    @Option(
        name: .customLong("public-host"),
        help: "The host name clients connect to: named in invite URLs and owner.url, and put in a new certificate's names (default: --host, or the machine's host name when --host is 0.0.0.0 or ::).")
    var publicHost: String?

    @Option(help: "The TCP port to listen on.")
    var port: Int = 7420

    @Option(
        name: .customLong("public-port"),
        help: "The port clients connect to, when it is not --port (HAProxy's, with several nodes behind it on one machine): named in invite URLs and owner.url.")
    var publicPort: Int?

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

    @Option(
        name: .customLong("members-max"),
        help: "Most members of a board (members_max, advertised in welcome.limits), up to \(Limits.membersMax).")
    var membersMax: Int = Limits.membersDefault

    @Option(
        name: .customLong("handshake-timeout-ms"),
        help: "Time a client has to finish the TLS handshake, in ms (handshake_timeout_ms).")
    var handshakeTimeoutMs: Int = WireLimits().handshakeTimeoutMs

    @Option(
        name: .customLong("auth-timeout-ms"),
        help: "Time a client has from the end of the handshake to its hello, in ms (auth_timeout_ms).")
    var authTimeoutMs: Int = WireLimits().authTimeoutMs

    @Option(
        name: .customLong("heartbeat-ms"),
        help: "Interval of the server's ping, in ms; a connection silent for two intervals is closed (heartbeat_ms).")
    var heartbeatMs: Int = WireLimits().heartbeatMs

    @OptionGroup(title: "The web page") var web: WebOptions

    @Option(
        name: .customLong("mail-command"),
        help: "The command unread inbox entries are mailed through: a message on its stdin, recipients in its headers (sendmail's interface, which exim, postfix and msmtp provide).")
    var mailCommand: String = "/usr/sbin/sendmail -t"

    @Option(name: .customLong("mail-from"), help: "The sender of those mails (default: corkd@ the public host).")
    var mailFrom: String?

    @Option(
        name: .customLong("mail-scan-interval-ms"),
        help: "How often unread entries are looked at for mail, in ms (1000–3600000).")
    var mailScanIntervalMs: Int = 30_000

    @Flag(name: .customLong("no-mail"), help: "Mail nothing (the inbox still works).")
    var noMail = false

    @Flag(name: .customLong("exit-with-parent"), help: .hidden)
    var exitWithParent = false

    static let rateRange: ClosedRange<Int64> = 1...1_000_000_000
    static let connectionsRange: ClosedRange<Int64> = 1...100_000
    static let timeoutRange: ClosedRange<Int64> = 100...3_600_000

    /// Puts the options in `configuration`, checking each: a usage error (exit 2) names the first impossible one.
    func checkOptions(into configuration: inout ServerConfiguration) throws {
        configuration.host = host
        configuration.port = port
        configuration.dataDirectory = data.url
        configuration.certificatePath = cert
        configuration.keyPath = key
        guard (0...65535).contains(port) else { throw CorkdExit.usage("--port must be 0–65535") }
        for (name, value, range) in [
            ("--rate", rate, Self.rateRange), ("--burst", burst, Self.rateRange),
            ("--connections-per-user", connectionsPerUser, Self.connectionsRange),
            ("--handshake-timeout-ms", handshakeTimeoutMs, Self.timeoutRange), ("--auth-timeout-ms", authTimeoutMs, Self.timeoutRange),
            ("--heartbeat-ms", heartbeatMs, Self.timeoutRange),
        ] where !range.contains(Int64(value)) {
            throw CorkdExit.usage("\(name) must be \(range.lowerBound)–\(range.upperBound)")
        }
        configuration.limits.rateOpsPerS = rate
        configuration.limits.rateBurst = burst
        configuration.limits.connectionsPerUser = connectionsPerUser
        guard (1...Limits.membersMax).contains(membersMax) else {
            throw CorkdExit.usage("--members-max must be 1–\(Limits.membersMax)")
        }
        configuration.limits.membersMax = membersMax
        configuration.limits.handshakeTimeoutMs = handshakeTimeoutMs
        configuration.limits.authTimeoutMs = authTimeoutMs
        configuration.limits.heartbeatMs = heartbeatMs
        configuration.publicHost = publicHost
        if let publicPort {
            guard (1...65535).contains(publicPort) else { throw CorkdExit.usage("--public-port must be 1–65535") }
            configuration.publicPort = publicPort
        }
        try operating.apply(to: &configuration)
        var listeners: [Listener] = [Listener(name: "--port (server.port)", host: host, port: port)]
        if !web.disabled, let webPort = web.port {
            listeners.append(Listener(name: "--web-port (web.port)", host: web.host ?? host, port: webPort))
        }
        if let address = configuration.metricsAddress {
            listeners.append(Listener(name: "--metrics (metrics.listen)", host: address.host, port: address.port))
        }
        if let address = configuration.healthAddress {
            listeners.append(Listener(name: "--health (health.listen)", host: address.host, port: address.port))
        }
        if let clash = Listener.clash(listeners) { throw CorkdExit.usage(clash) }
        try hookOptions.apply(to: &configuration)
        configuration.mail.command = noMail || mailCommand.isEmpty ? nil : mailCommand
        guard (1_000...3_600_000).contains(mailScanIntervalMs) else {
            throw CorkdExit.usage("--mail-scan-interval-ms must be 1000–3600000")
        }
        configuration.mail.scanInterval = .milliseconds(mailScanIntervalMs)
        if let mailFrom {
            guard NotifySettings.addressProblem(mailFrom) == nil else { throw CorkdExit.usage("--mail-from must be a mail address") }
            configuration.mail.from = mailFrom
        } else {
            configuration.mail.from = "corkd@" + (publicHost ?? ProcessInfo.processInfo.hostName)
        }
    }

    /// Whether the files the settings name are there, checked before anything is made in the data directory and by
    /// `config check` (a reload names a changed one as needing a restart instead).
    func checkFiles() throws {
        let problems = fileProblems(readableBy: nil)
        if !problems.isEmpty { throw CorkdExit.usage(problems.joined(separator: "\ncorkd: ")) }
    }

    /// The files the settings name that cannot be read: by this process, or (`readableBy`) by that user as well, the
    /// one the service runs as. Every one, not the first.
    func fileProblems(readableBy service: (uid: uid_t, gid: gid_t, name: String)?) -> [String] {
        var problems: [String] = []
        for (option, key, path) in [
            ("--cert", "server.cert", cert), ("--key", "server.key", key), ("--web-key", "web.key", web.disabled ? nil : web.keyFile),
        ] {
            guard let path else { continue }
            // Named every way it can be given: the flag, the file's key and the environment's variable.
            let variable = ConfigKey.all.first { $0.name == key }?.environmentName ?? ""
            if access(path, R_OK) != 0 {
                // Which it is, and what to do: as corkd's own files in the data directory are named.
                let why =
                    FileManager.default.fileExists(atPath: path)
                    ? "this user (\(DataDirectory.userName(geteuid()))) cannot read it: \(String(cString: strerror(errno))); "
                        + DataDirectory.ownershipAdvice(path)
                    : "no such file"
                problems.append("\(option) (\(key), \(variable)) \(path): \(why)")
            } else if let service, !FileAccess.readable(path, uid: service.uid, gid: service.gid, user: service.name) {
                problems.append(
                    "\(option) (\(key), \(variable)) \(path): \(service.name), who owns the data directory and serves from it, "
                        + "cannot read it (chgrp \(service.name) it and chmod g+r, or chown \(service.name) it)")
            }
        }
        return problems
    }

    /// The program `command` runs (its first word after any `NAME=value`, as `/bin/sh -c` runs it) when it cannot
    /// be found: a path that is not executable, or a name not on PATH.
    static func missingProgram(_ command: String) -> String? {
        guard let program = command.split(separator: " ").first(where: { !$0.contains("=") }).map(String.init) else { return nil }
        if program.contains("/") { return FileManager.default.isExecutableFile(atPath: program) ? nil : program }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let found = path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(program)") }
        return found ? nil : program
    }

    func run() async throws {
        // Read first: the parent may die while the store opens and the listeners start (a load generator killed
        // during its set-up), and read only then, the orphan's new parent was taken for the one to outlive.
        let parentAtStart = getppid()
        let logger = data.logger("corkd")
        // Which build is running: after an upgrade in place, the log says whether the new one started.
        logger.info("starting \(BuildInfo.versionLine("corkd"))", metadata: ["pid": "\(getpid())"])
        var configuration = ServerConfiguration()
        try checkOptions(into: &configuration)
        try checkFiles()
        if let command = configuration.mail.command, let program = Self.missingProgram(command) {
            logger.warning(
                "the mail command's \(program) is not installed: unread inbox entries are not mailed (install a sendmail, such as msmtp-mta, name another with --mail-command, or say --no-mail)")
        }
        let machineHostName = ProcessInfo.processInfo.hostName
        if !machineHostName.isEmpty, !configuration.certificateHosts.contains(machineHostName) {
            configuration.certificateHosts.append(machineHostName)
        }
        let store = try data.storeLocation()
        let setup: ServerSetup
        do {
            setup = try await ServerSetup.prepare(configuration, store: store, machineHostName: machineHostName, logger: logger)
        } catch let error as ServerError where error.code == .damaged {
            Console.error("corkd: \(error)\ncorkd: the data directory is damaged; refusing to serve. Restore a backup.\n")
            throw ExitCode(2)
        } catch let error as ServerError where error.code == .unreachable {
            // Not a refusal: the same start works once the database answers, so exit 1, which the unit restarts.
            Console.error("corkd: \(error)\ncorkd: the database cannot be reached; exiting 1 (a service manager starts corkd again).\n")
            throw ExitCode(1)
        } catch {
            Console.error("corkd: \(error)\ncorkd: refusing to serve.\n")
            throw ExitCode(2)
        }
        let directory = data.url
        let settings = configuration
        let configurationFile = data.config
        let listenFile = ListenFile(directory: directory, logger: logger)
        if !web.disabled { configuration.mail.webURL = { await listenFile.webURL } }
        let accepted = AcceptedConnections()
        let webServer: WebServer?
        do {
            webServer = try web.server(
                serverPort: port, serverHost: host, advertisedHost: setup.advertisedHost, tls: setup.tls,
                settings: settings, accepted: accepted, store: setup.store, logger: logger, directory: directory,
                ownerToken: setup.ownerToken, listenFile: listenFile)
        } catch {
            Console.error("corkd: \(error)\ncorkd: refusing to serve.\n")
            await setup.release()
            throw ExitCode(2)
        }
        // The web page's port first: taken, corkd stops before the board server listens and says it is serving.
        do {
            try await webServer?.listen()
        } catch {
            Console.error("corkd: \(error)\ncorkd: refusing to serve.\n")
            await setup.release()
            throw ExitCode(2)
        }
        let ownerToken = setup.ownerToken
        let fingerprint = setup.fingerprint
        let advertised = setup.advertisedHost
        let server = BoardServer(
            configuration: configuration, store: setup.store, features: setup.features, tls: setup.tls,
            accepted: webServer == nil ? nil : accepted, logger: logger,
            onListening: { address in
                let port = address.port ?? settings.port
                let record = ListenRecord(
                    host: advertised, port: port, publicPort: settings.publicPort, bind: settings.host,
                    fingerprint: fingerprint.description, membersMax: settings.limits.membersMax)
                let urlPort = record.advertisedPort
                await listenFile.update(record)
                var lines = [
                    "corkd listening on \(settings.host):\(port)", "certificate fingerprint \(fingerprint)",
                    "  as openssl x509 -fingerprint -sha256 prints it: \(fingerprint.opensslForm)",
                ]
                lines += OperatorOptions.banner(settings)
                if let file = configurationFile { lines.append("configuration \(file)") }
                if settings.publicHost == nil && settings.bindsEveryInterface {
                    lines.append("invite URLs name \(advertised), this machine's host name (--public-host NAME to choose)")
                    // Also to the log: under systemd stdout goes nowhere, and an operator must still be told.
                    logger.notice(
                        "invite URLs name this machine's host name; --public-host NAME chooses another",
                        metadata: ["host": "\(advertised)"])
                } else if advertised != settings.host {
                    lines.append("invite URLs name \(advertised)")
                }
                if urlPort != port { lines.append("invite URLs name port \(urlPort) (server.public_port, --public-port)") }
                let ownerFile = directory.appendingPathComponent(ServerSetup.ownerURLFileName).path
                if let ownerToken {
                    let url = InviteURL(
                        host: advertised, port: urlPort, board: settings.defaultBoard, token: ownerToken,
                        fingerprint: fingerprint.description)
                    do {
                        try ServerSetup.writeOwnerURL(url, in: directory)
                    } catch {
                        logger.error("cannot write \(ownerFile); the owner URL is only here", metadata: ["error": "\(error)"])
                    }
                    lines.append("owner invite URL (also in \(ownerFile)):")
                    lines.append("  \(url)")
                } else {
                    // Same owner, same token; the address or certificate may have changed since it was written.
                    ServerSetup.refreshOwnerURL(host: advertised, port: urlPort, fingerprint: fingerprint, in: directory, logger: logger)
                    if FileManager.default.fileExists(atPath: ownerFile) {
                        lines.append("owner invite URL: \(ownerFile)")
                    } else {
                        // Another node on the same database made the first start: its data directory has the file.
                        lines.append(
                            "owner invite URL: none here (the node that made the first start has it; "
                                + "`corkd invite --user \(settings.ownerName) --role owner` makes another)")
                    }
                }
                // Written at once (scripts and supervisors read it from a pipe); a stdout that cannot be written
                // (full, closed, a pipe without a reader) is no reason to stop serving.
                if !Console.out(lines.joined(separator: "\n") + "\n") {
                    logger.debug("stdout cannot be written; the banner was dropped")
                }
                await listenFile.serverBannerPrinted()
            })
        if exitWithParent { Self.watchParent(parentAtStart) }
        // Freed connection memory goes back to the system (MemoryTrim, stopped with the server).
        let opened = setup.store
        let trimmer = Task { await MemoryTrim.run(alsoRelease: { opened.releaseIdleMemory() }) }
        defer { trimmer.cancel() }
        let reloader = ConfigReloader(started: self, live: configuration.live, logger: logger)
        // A graceful shutdown stops the services in the reverse of this order, each after the one before it has
        // ended: the board server first (its health turns 503 at once, every session gets `bye` and what is
        // pending is committed), then the web listener, which ends its connections (see `WebServer`).
        let group = ServiceGroup(
            configuration: .init(
                services: (webServer.map { [$0 as any Service] } ?? []) + [server as any Service, reloader],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch let error as ServerError where error.code == .damaged {
            // A board that cannot be read at start: the same refusal as a store that fails its check (exit 2).
            Console.error("corkd: \(error)\ncorkd: the data directory is damaged; refusing to serve. Restore a backup.\n")
            await setup.release()
            throw ExitCode(2)
        } catch let error as ServerError where error.code == .network {
            // The TLS listener could not start (the port is taken, the address is not this machine's): a refusal to
            // start like a bad option, exit 2, which the unit does not restart.
            Console.error("corkd: \(error)\ncorkd: refusing to serve.\n")
            await setup.release()
            throw ExitCode(2)
        } catch let error as WebError {
            // The web listener could not start, for the same reasons.
            Console.error("corkd: \(error)\ncorkd: refusing to serve.\n")
            await setup.release()
            throw ExitCode(2)
        } catch {
            // A service failed while serving: what was pending is committed; exit non-zero at once so that a
            // supervisor (systemd's Restart=on-failure) starts a fresh server.
            logger.critical("corkd stopped serving", metadata: ["error": "\(error)"])
            await setup.release()
            throw ExitCode(1)
        }
        // Every board has committed; checkpoint the WAL and close the store.
        do {
            try await setup.store.close()
        } catch {
            logger.warning("the store did not close cleanly", metadata: ["error": "\(error)"])
        }
        // Held until here: admin commands hand their work to this server until it has stopped.
        await setup.lock.release()
    }
}

extension Serve {
    /// `--exit-with-parent` (used by `cork-load --spawn`): shuts down as on SIGTERM once the parent process is
    /// gone, so that a load generator killed with SIGKILL does not leave its server behind.
    static func watchParent(_ parent: pid_t) {
        Thread.detachNewThread {
            // A parent of 1 at the start is gone already (the orphan was handed to init).
            while getppid() == parent && parent != 1 { Thread.sleep(forTimeInterval: 0.5) }
            kill(getpid(), SIGTERM)
        }
    }
}

/// A port corkd listens on, for finding two on one port before either binds (the second bind failed only once the
/// first listener had started, and `config check` said nothing).
struct Listener {
    var name: String
    var host: String
    var port: Int

    /// Whether both may be asked for the same socket: one port on overlapping addresses (a wildcard overlaps every
    /// address; `localhost` is loopback).
    func overlaps(_ other: Listener) -> Bool {
        guard port != 0, port == other.port else { return false }
        let wildcards: Set<String> = ["0.0.0.0", "::", "*", ""]
        if wildcards.contains(host) || wildcards.contains(other.host) { return true }
        let loopback: Set<String> = ["localhost", "127.0.0.1", "::1"]
        return host == other.host || (loopback.contains(host) && loopback.contains(other.host))
    }

    /// Every pair of `listeners` on one port, in words (one line each, as corkd names several problems), or nil.
    static func clash(_ listeners: [Listener]) -> String? {
        var lines: [String] = []
        for (index, second) in listeners.enumerated() {
            for first in listeners[..<index] where first.overlaps(second) {
                lines.append("\(second.name) \(second.port) is \(first.name)'s too: each listener needs a port of its own")
            }
        }
        return lines.isEmpty ? nil : lines.joined(separator: "\ncorkd: ")
    }
}
