import BoardTesting
import BoardTransport
import BoardWire
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// corkd.toml: the real `corkd` reads it, the environment and flags override it in that order, and a file with a
/// misspelt key, a wrong type or an impossible value stops corkd with the key and the line (exit 2).
@Suite(.serialized, .startsProcesses(within: .minutes(2))) struct CorkdConfigTests {
    /// A configuration file in the process's directory (readable by the unprivileged user corkd runs as).
    static func write(_ text: String, in corkd: CorkdProcess, name: String = "corkd.toml") throws -> String {
        let file = corkd.root.appendingPathComponent(name)
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    /// The test's environment without CORKD_ settings, plus `extra`.
    static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("CORKD_") }
        environment.merge(extra) { _, new in new }
        return environment
    }

    static func check(
        _ file: String, in corkd: CorkdProcess, environment: [String: String] = environment(), options: [String] = []
    ) async throws -> SpawnedProcess.Result {
        try await SpawnedProcess.run(
            CorkdProcess.executable, ["config", "check", "--config", file] + options, logDirectory: corkd.logDirectory,
            name: "config-check", environment: environment, unprivileged: true)
    }

    /// `config check` names every file that cannot be read, not the first; and run as root (as the packaging's
    /// docs run it) on a data directory the service's user owns, it checks the files as that user reads them: a
    /// key only root can read passed, and the service then refused to start.
    @Test(.enabled(if: Unprivileged.isActive, "needs root and the nobody user"))
    func asRootItChecksTheFilesAsTheServicesUserReadsThem() async throws {
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        let both = try await SpawnedProcess.run(
            CorkdProcess.executable,
            ["config", "check", "--config", "/dev/null", "--cert", "/nonexistent/cert.pem", "--key", "/nonexistent/key.pem"],
            logDirectory: corkd.logDirectory, name: "config-check-missing", environment: Self.environment())
        #expect(both.exit.status == 2, "\(both.exit)")
        #expect(both.standardError.contains("--cert (server.cert, CORKD_SERVER_CERT) /nonexistent/cert.pem"), "\(both.standardError)")
        #expect(both.standardError.contains("--key (server.key, CORKD_SERVER_KEY) /nonexistent/key.pem: no such file"), "\(both.standardError)")

        let root = FileManager.default.temporaryDirectory.appendingPathComponent("service-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let data = root.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        chmod(root.path, 0o755)
        try Unprivileged.handOver(data)
        let cert = root.appendingPathComponent("cert.pem").path
        let key = root.appendingPathComponent("key.pem").path
        try "certificate".write(toFile: cert, atomically: true, encoding: .utf8)
        try "key".write(toFile: key, atomically: true, encoding: .utf8)
        chmod(cert, 0o644)
        chmod(key, 0o600)
        let options = ["config", "check", "--config", "/dev/null", "--data-dir", data.path, "--cert", cert, "--key", key]
        let asRoot = try await SpawnedProcess.run(
            CorkdProcess.executable, options, logDirectory: corkd.logDirectory, name: "config-check-root", environment: Self.environment())
        #expect(asRoot.exit.status == 2, "\(asRoot.exit): \(asRoot.standardError)")
        #expect(asRoot.standardError.contains("\(key): nobody, who owns the data directory and serves from it, cannot read it"), "\(asRoot.standardError)")
        #expect(!asRoot.standardError.contains("\(cert):"), "\(asRoot.standardError)")
    }

    @Test func aMisspeltKeyIsNamedWithItsLineAndSuggestion() async throws {
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        let file = try Self.write(
            """
            # corkd settings
            data_dir = "/var/lib/corkd"
            rate = 50

            [server]
            prot = 7500
            rate = 50
            """, in: corkd)
        let result = try await Self.check(file, in: corkd)
        #expect(result.exit.reason == .exit && result.exit.status == 2, "\(result.exit)")
        #expect(result.standardError.contains("\(file):6: server.prot: unknown key (did you mean server.port?)"), "\(result.standardError)")
        // A key outside its table is pointed to it.
        #expect(result.standardError.contains("\(file):3: rate: unknown key (did you mean limits.rate?)"), "\(result.standardError)")
        // A key in another table is pointed to its own.
        #expect(result.standardError.contains("\(file):7: server.rate: unknown key (did you mean limits.rate?)"), "\(result.standardError)")
        #expect(result.standardOutput.isEmpty)
    }

    @Test func everyProblemIsReportedWithItsLine() async throws {
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        let file = try Self.write(
            """
            log_level = "loud"
            [limits]
            rate = 0
            burst = "forty"
            [webb]
            port = 1
            [metrics]
            listen = "nowhere"
            """, in: corkd)
        let result = try await Self.check(file, in: corkd)
        #expect(result.exit.status == 2)
        let said = result.standardError
        #expect(said.contains("\(file):1: log_level: must be one of trace, debug"), "\(said)")
        #expect(said.contains("\(file):3: limits.rate: must be 1–1000000000, not 0"), "\(said)")
        #expect(said.contains("\(file):4: limits.burst: must be an integer, not a string"), "\(said)")
        #expect(said.contains("\(file):5: webb: unknown table [webb] (did you mean [web]?)"), "\(said)")
        #expect(said.contains("\(file):8: metrics.listen: must be HOST:PORT"), "\(said)")
        #expect(said.contains("5 problems; nothing was started (exit 2)"), "\(said)")
    }

    /// A bad option is a refusal to start like any other: exit 2 (the unit's RestartPreventExitStatus), one line.
    @Test(arguments: [["serve", "--bogus"], ["serve", "--port", "notanumber"], ["invite", "--bogus"], ["--bogus"]])
    func aBadOptionExitsTwoOnOneLine(_ arguments: [String]) async throws {
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        let result = try await SpawnedProcess.run(
            CorkdProcess.executable, arguments, logDirectory: corkd.logDirectory, name: "bad-option",
            environment: Self.environment(), unprivileged: true)
        #expect(result.exit.reason == .exit && result.exit.status == 2, "\(arguments): \(result.exit)")
        let lines = result.standardError.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("corkd: ") && lines[0].contains("--help')"), "\(result.standardError)")
    }

    /// A certificate or key the file names that is not there is found by `config check`, and `serve` refuses before
    /// it makes anything in the data directory (it made a first start, then failed).
    @Test(arguments: [("server", "cert"), ("server", "key"), ("web", "key")])
    func aMissingFileTheConfigurationNamesIsFoundBeforeAnythingIsMade(table: String, key: String) async throws {
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        let missing = corkd.root.appendingPathComponent("missing-\(key).pem").path
        let data = corkd.root.appendingPathComponent("fresh-data").path
        let file = try Self.write("data_dir = \"\(data)\"\n[\(table)]\n\(key) = \"\(missing)\"\n", in: corkd)
        let checked = try await Self.check(file, in: corkd)
        #expect(checked.exit.status == 2, "\(checked.exit)")
        let variable = "CORKD_\(table.uppercased())_\(key.uppercased())"
        #expect(checked.standardError.contains("\(table).\(key), \(variable)) \(missing): no such file"), "\(checked.standardError)")
        #expect(checked.standardError.contains("the configuration has a problem; nothing was started"), "\(checked.standardError)")
        let served = try await SpawnedProcess.run(
            CorkdProcess.executable, ["serve", "--config", file, "--port", "0", "--web-port", "0"],
            timeout: .seconds(30), logDirectory: corkd.logDirectory, name: "serve-missing", environment: Self.environment(),
            unprivileged: true)
        #expect(served.exit.reason == .exit && served.exit.status == 2, "\(served.exit)")
        #expect(!FileManager.default.fileExists(atPath: data), "the data directory was made")
    }

    /// Metrics on an address other than loopback from the file: refused in the file's words as well as the flag's.
    @Test func remoteMetricsFromTheFileAreRefusedNamingTheSetting() async throws {
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        let file = try Self.write("[metrics]\nlisten = \"0.0.0.0:9400\"\n", in: corkd)
        let result = try await Self.check(file, in: corkd)
        #expect(result.exit.status == 2, "\(result.exit)")
        #expect(result.standardError.contains("(metrics.listen) 0.0.0.0:9400 is not a loopback address"), "\(result.standardError)")
        #expect(result.standardError.contains("metrics.allow_remote = true"), "\(result.standardError)")
    }

    @Test func aSyntaxErrorNamesItsLine() async throws {
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        let file = try Self.write("[server]\nport = 7420\nhost = \n", in: corkd)
        let result = try await Self.check(file, in: corkd)
        #expect(result.exit.status == 2)
        #expect(result.standardError.contains("\(file):3: "), "\(result.standardError)")
    }

    @Test func checkPrintsTheEffectiveSettingsWithSourcesAndMasksPasswords() async throws {
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        let file = try Self.write(
            """
            store = "postgres://corkd:hunter2@db.example:5432/corkd"
            [limits]
            rate = 50
            [web]
            allow_origins = ["https://a.example"]
            """, in: corkd)
        let result = try await Self.check(file, in: corkd, environment: Self.environment(["CORKD_LIMITS_BURST": "90"]))
        #expect(result.exit.isSuccess, "\(result.standardError)")
        let out = result.standardOutput
        #expect(!out.contains("hunter2"), "\(out)")
        #expect(out.contains(#"store = "postgres://corkd:*****@db.example:5432/corkd"  # \#(file):1"#), "\(out)")
        #expect(out.contains("rate = 50  # \(file):3"), "\(out)")
        #expect(out.contains("burst = 90  # environment CORKD_LIMITS_BURST"), "\(out)")
        #expect(out.contains("port = 7420  # default"), "\(out)")
        #expect(out.contains(#"allow_origins = ["https://a.example"]  # \#(file):5"#), "\(out)")
    }

    /// A deployment that gives its settings as flags (a unit file, a start loop per node) checks them with the same
    /// flags: they win over the file and the environment, and are named as the command line's.
    @Test func checkTakesServesOptionsAndNamesThemAsTheCommandLines() async throws {
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        let file = try Self.write("[server]\nport = 7500\n[limits]\nrate = 50\n", in: corkd)
        let result = try await Self.check(
            file, in: corkd, environment: Self.environment(["CORKD_LIMITS_BURST": "90"]),
            options: ["--port", "7421", "--burst", "70", "--data-dir", corkd.dataDirectory.path])
        #expect(result.exit.isSuccess, "\(result.standardError)")
        let out = result.standardOutput
        #expect(out.contains("port = 7421  # command line"), "\(out)")
        #expect(out.contains("burst = 70  # command line"), "\(out)")
        #expect(out.contains(#"data_dir = "\#(corkd.dataDirectory.path)"  # command line"#), "\(out)")
        #expect(out.contains("rate = 50  # \(file):4"), "\(out)")
        // A bad option is refused as serve refuses it.
        let bad = try await Self.check(file, in: corkd, options: ["--port", "99999"])
        #expect(bad.exit.status == 2 && bad.standardOutput.isEmpty, "\(bad.exit) \(bad.standardOutput)")
        let missing = try await Self.check(file, in: corkd, options: ["--cert", "/nonexistent/chain.pem", "--key", "/nonexistent/key.pem"])
        #expect(missing.exit.status == 2 && missing.standardError.contains("/nonexistent/chain.pem"), "\(missing.standardError)")
        // One there but unreadable is told apart from a missing one, with the user and what to do.
        let closed = corkd.root.appendingPathComponent("root-only.pem").path
        try "certificate".write(toFile: closed, atomically: true, encoding: .utf8)
        chmod(closed, 0o600)
        let unreadable = try await Self.check(file, in: corkd, options: ["--cert", closed, "--key", closed])
        #expect(unreadable.exit.status == 2, "\(unreadable.exit)")
        #expect(
            unreadable.standardError.contains("\(closed): this user (nobody) cannot read it") && unreadable.standardError.contains("chown"),
            "\(unreadable.standardError)")
        // A data directory this user cannot make is found by the check, not by the start.
        let locked = corkd.root.appendingPathComponent("read-only")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o555])
        let unwritable = try await Self.check(file, in: corkd, options: ["--data-dir", locked.appendingPathComponent("data").path])
        #expect(unwritable.exit.status == 2, "\(unwritable.exit)")
        #expect(unwritable.standardError.contains("this user cannot make it in \(locked.path)"), "\(unwritable.standardError)")
        // The web page on the server's own port is found by the check too (serve failed on it, its own page holding
        // the port, after it had made the data directory).
        // Ports nothing listens on (the check binds nothing, but a test never names a fixed port).
        let (p0, p1, p2, p3) = (try LoopbackPort.closed(), try LoopbackPort.closed(), try LoopbackPort.closed(), try LoopbackPort.closed())
        let shared = try await Self.check(file, in: corkd, options: ["--port", "\(p0)", "--web-port", "\(p0)"])
        #expect(shared.exit.status == 2, "\(shared.exit)")
        #expect(
            shared.standardError.contains("--web-port (web.port) \(p0) is --port (server.port)'s too"), "\(shared.standardError)")
        // So are health and metrics on one port (serve failed to bind the second; the check had found no problem).
        let admin = try await Self.check(
            file, in: corkd, options: ["--metrics", "127.0.0.1:\(p1)", "--health", "localhost:\(p1)"])
        #expect(admin.exit.status == 2, "\(admin.exit)")
        #expect(
            admin.standardError.contains("--health (health.listen) \(p1) is --metrics (metrics.listen)'s too"),
            "\(admin.standardError)")
        // Every clash at once, not the first.
        let both = try await Self.check(
            file, in: corkd, options: ["--port", "\(p2)", "--web-port", "\(p2)", "--metrics", "127.0.0.1:\(p3)", "--health", "127.0.0.1:\(p3)"])
        #expect(
            both.standardError.contains("--web-port (web.port) \(p2)") && both.standardError.contains("--health (health.listen) \(p3)"),
            "\(both.standardError)")
    }

    /// A data directory whose store its user cannot open is found by the check too (it said "no problems found",
    /// and serve then refused the file).
    @Test func corkdsOwnFilesItsUserCannotOpenAreFoundByTheCheck() async throws {
        try await withCorkd { corkd in
            _ = try await corkd.terminate()
            let store = corkd.dataDirectory.appendingPathComponent("corkd.sqlite").path
            #expect(chown(store, 0, 0) == 0)
            let file = try Self.write("", in: corkd)
            let result = try await Self.check(file, in: corkd, options: ["--data-dir", corkd.dataDirectory.path])
            #expect(result.exit.status == 2, "\(result.exit) \(result.standardOutput)")
            #expect(result.standardError.contains("\(store) cannot be read and written by this user"), "\(result.standardError)")
        }
    }

    @Test func aBadEnvironmentValueIsNamed() async throws {
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        let file = try Self.write("", in: corkd)
        let result = try await Self.check(file, in: corkd, environment: Self.environment(["CORKD_SERVER_PORT": "seventy"]))
        #expect(result.exit.status == 2)
        #expect(result.standardError.contains("environment CORKD_SERVER_PORT: server.port: must be an integer, not seventy"), "\(result.standardError)")
    }

    @Test func aVariableThatLooksLikeASettingButIsNotOneIsPointedToIt() async throws {
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        let file = try Self.write("", in: corkd)
        let environment = Self.environment(["CORKD_PORT": "7500", "CORKD_OPTIONS": "--log-level debug"])
        let result = try await Self.check(file, in: corkd, environment: environment)
        // A warning, not a refusal: CORKD_… names may be another tool's.
        #expect(result.exit.status == 0, "\(result.standardError)")
        #expect(
            result.standardError.contains(
                "environment CORKD_PORT: not a setting, ignored (did you mean CORKD_SERVER_PORT or CORKD_WEB_PORT?)"),
            "\(result.standardError)")
        #expect(!result.standardError.contains("CORKD_OPTIONS"), "the unit's own variable: \(result.standardError)")
        // Said too when the configuration has problems of its own (it may be why a setting is missing).
        let bad = try Self.write("[server]\nprot = 1\n", in: corkd, name: "bad.toml")
        let both = try await Self.check(bad, in: corkd, environment: environment)
        #expect(both.exit.status == 2, "\(both.exit)")
        #expect(both.standardError.contains("environment CORKD_PORT: not a setting"), "\(both.standardError)")
    }

    /// The file sets three limits; the environment overrides one and a flag another: the welcome shows each winner.
    @Test func flagsOverrideTheEnvironmentWhichOverridesTheFile() async throws {
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        let file = try Self.write(
            """
            [limits]
            rate = 7
            burst = 5
            connections_per_user = 4
            [web]
            enabled = false
            """, in: corkd)
        try await corkd.start(options: ["--config", file, "--rate", "11"], environment: Self.environment(["CORKD_LIMITS_BURST": "3"]), web: false)
        #expect(corkd.standardOutput.contains("configuration \(file)"), "\(corkd.standardOutput)")
        #expect(corkd.webPort == nil, "web.enabled = false still served a page")
        let probe = try await WireProbe.connect(port: corkd.port, fingerprint: try corkd.pinned())
        try await probe.send(#"{"type":"hello","version":1,"client":"config-test","token":"\#(corkd.ownerToken)"}"#)
        let welcome = try await probe.expect(type: "welcome")
        let limits = try #require(welcome["limits"] as? [String: Any])
        #expect(limits["rate_ops_per_s"] as? Int == 11, "flag: \(limits)")
        #expect(limits["rate_burst"] as? Int == 3, "environment: \(limits)")
        #expect(limits["connections_per_user"] as? Int == 4, "file: \(limits)")
        await probe.close()
        let exit = try await corkd.terminate()
        #expect(exit.isSuccess, "\(exit)")
    }

    /// An admin command takes the data directory from the file, as the packaged service's does.
    @Test func adminCommandsReadTheDataDirectoryFromTheFile() async throws {
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        try await corkd.start()
        _ = try await corkd.terminate()
        let file = try Self.write("data_dir = \(ConfigValueText.quoted(corkd.dataDirectory.path))\n", in: corkd)
        let result = try await SpawnedProcess.run(
            CorkdProcess.executable, ["invite", "--user", "erin", "--config", file], logDirectory: corkd.logDirectory,
            name: "invite", environment: Self.environment(), unprivileged: true)
        #expect(result.exit.isSuccess, "\(result.standardError)")
        #expect(InviteURL(result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)) != nil, "\(result.standardOutput)")
    }

    /// SIGHUP applies the new rate (the next welcome shows it), says what needs a restart, and a broken file
    /// afterwards changes nothing.
    @Test func sighupReloadsWhatCanChangeAndNamesTheRest() async throws {
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        let file = try Self.write("[limits]\nrate = 7\n", in: corkd)
        try await corkd.start(options: ["--config", file], environment: Self.environment())
        func welcomeRate() async throws -> Int? {
            let probe = try await WireProbe.connect(port: corkd.port, fingerprint: try corkd.pinned())
            try await probe.send(#"{"type":"hello","version":1,"client":"config-test","token":"\#(corkd.ownerToken)"}"#)
            let welcome = try await probe.expect(type: "welcome")
            await probe.close()
            return (welcome["limits"] as? [String: Any])?["rate_ops_per_s"] as? Int
        }
        #expect(try await welcomeRate() == 7)

        // log_level too, but the test's --log-level wins over the file, before and after the reload.
        _ = try Self.write(
            "log_level = \"debug\"\n[limits]\nrate = 13\n[hooks]\ntimeout_ms = 2000\n[server]\ncert = \"/nowhere.pem\"\n", in: corkd)
        let server = try #require(corkd.server)
        server.send(signal: SIGHUP)
        #expect(await server.waitForStandardError(containing: "SIGHUP: not reloaded; restart corkd to apply", timeout: .seconds(20)), "\(server.standardError.suffix(2000))")
        let said = server.standardError
        #expect(said.contains("limits.rate 7 → 13"), "\(said.suffix(2000))")
        #expect(said.contains("hooks.timeout_ms 10000 → 2000"), "\(said.suffix(2000))")
        #expect(!said.contains("log_level"), "\(said.suffix(2000))")
        #expect(said.contains(#"server.cert (not set) → "/nowhere.pem""#), "\(said.suffix(2000))")
        #expect(try await welcomeRate() == 13)

        _ = try Self.write("[limits]\nrate = zero\n", in: corkd)
        server.send(signal: SIGHUP)
        #expect(await server.waitForStandardError(containing: "SIGHUP: the configuration has problems; nothing was reloaded", timeout: .seconds(20)))
        #expect(try await welcomeRate() == 13)
        #expect(server.isRunning)
        let exit = try await corkd.terminate()
        #expect(exit.isSuccess, "\(exit)")
    }

    @Test func serveRefusesToStartOnABadFile() async throws {
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        let file = try Self.write("[server]\nport = 70000\n", in: corkd)
        let result = try await SpawnedProcess.run(
            CorkdProcess.executable, ["serve", "--config", file, "--data-dir", corkd.dataDirectory.path],
            logDirectory: corkd.logDirectory, name: "serve-bad", environment: Self.environment(), unprivileged: true)
        #expect(result.exit.reason == .exit && result.exit.status == 2, "\(result.exit)")
        #expect(result.standardError.contains("\(file):2: server.port: must be 0–65535, not 70000"), "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: corkd.dataDirectory.appendingPathComponent("listen.json").path))
    }

    /// `--config /dev/null` is the documented way to read no file (a device has no size to read by).
    @Test func devNullIsAnEmptyConfiguration() async throws {
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        let result = try await Self.check("/dev/null", in: corkd)
        #expect(result.exit.reason == .exit && result.exit.status == 0, "\(result.exit) \(result.standardError)")
        #expect(result.standardOutput.contains("port = 7420  # default"), "\(result.standardOutput)")
    }

    @Test func aMissingFileNamedOnTheCommandLineIsAnError() async throws {
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        let missing = corkd.root.appendingPathComponent("nope.toml").path
        let result = try await Self.check(missing, in: corkd)
        #expect(result.exit.status == 2)
        #expect(result.standardError.contains("\(missing): cannot read the configuration file: No such file or directory"), "\(result.standardError)")
    }
}

/// TOML's basic string, for paths in the files these tests write.
enum ConfigValueText {
    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
