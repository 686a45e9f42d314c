import BoardTransport
import BoardWire
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The real `corkd` binary in a process of its own, on a temporary data directory that it keeps across restarts.
///
/// Under root (CI) the server and its admin commands run as ``Unprivileged/user``, who owns the temporary directory.
///
/// Tests where a process boundary matters (kill -9, signals, the admin CLI, interop) use it through `withCorkd`,
/// which SIGKILLs whatever still runs and removes the directory on every path.
public final class CorkdProcess {
    /// The package root, from this file's path (Sources/BoardTesting/CorkdProcess.swift).
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `.build/debug/corkd`, built by `swift build --build-tests`.
    public static let executable: URL = packageRoot.appendingPathComponent(".build/debug/corkd")

    /// The temporary directory holding `data/` and `logs/`.
    public let root: URL
    /// The data directory (`--data-dir`): store, certificate, `owner.url`, `listen.json`.
    public let dataDirectory: URL
    /// Where stdout/stderr of every process go.
    public let logDirectory: URL
    /// The store file.
    public var storeFile: URL { dataDirectory.appendingPathComponent("corkd.sqlite") }

    /// The running (or last) server process.
    public private(set) var server: SpawnedProcess?
    /// How many server processes were started (names their log files).
    private var starts = 0
    /// How many admin commands were run (names their log files).
    private var commands = 0

    /// Where the current server listens.
    public private(set) var port = 0
    /// The web page's port (listen.json's `web_url`), unless started with `--no-web`.
    public private(set) var webPort: Int?
    /// The port of the current server's `--health` listener, when it was started with one (`--health HOST:PORT`).
    public private(set) var healthPort: Int?
    /// The certificate's fingerprint, from `owner.url`'s `fp`.
    public private(set) var fingerprint: Fingerprint?
    /// The owner's token, from `owner.url`.
    public private(set) var ownerToken = ""
    /// The owner's invite URL as written on first start.
    public private(set) var ownerURL = ""

    public init() throws {
        guard FileManager.default.isExecutableFile(atPath: CorkdProcess.executable.path) else {
            throw TestFailure(
                "the corkd binary is missing at \(CorkdProcess.executable.path); run `swift build --build-tests` first")
        }
        root = FileManager.default.temporaryDirectory.appendingPathComponent("corkd-process-\(UUID().uuidString)")
        dataDirectory = root.appendingPathComponent("data")
        logDirectory = root.appendingPathComponent("logs")
        try FileManager.default.createDirectory(at: logDirectory, withIntermediateDirectories: true)
        try Unprivileged.handOver(root)
    }

    /// The pinned fingerprint (fails if the server never started).
    public func pinned() throws -> Fingerprint {
        guard let fingerprint else { throw TestFailure("corkd has not started yet") }
        return fingerprint
    }

    /// Makes this (not yet started) node another node of `first`'s shared store: the same owner token, invite URL and
    /// fingerprint, so `start` does not look for an `owner.url` (only the node that made the first start has one).
    /// Start it with `first`'s certificate (`certificateOptions(of:)`), so that the fingerprint holds.
    public func joinCluster(of first: CorkdProcess) throws {
        fingerprint = try first.pinned()
        ownerToken = first.ownerToken
        ownerURL = first.ownerURL
    }

    /// `--cert` and `--key` naming `node`'s self-signed certificate (readable by the user every node runs as).
    public static func certificateOptions(of node: CorkdProcess) -> [String] {
        [
            "--cert", node.dataDirectory.appendingPathComponent("cert.pem").path,
            "--key", node.dataDirectory.appendingPathComponent("key.pem").path,
        ]
    }

    /// The server process's pid.
    public var pid: Int32 { server?.pid ?? 0 }

    /// The server's stdout and stderr of the current (or last) run.
    public var standardOutput: String { server?.standardOutput ?? "" }
    public var standardError: String { server?.standardError ?? "" }

    /// Starts `corkd serve --port 0` on the data directory and waits (bounded) until it listens. `options` are
    /// more `serve` options (`--host` among them replaces the default 127.0.0.1); `environment`, when given, is the
    /// server's whole environment (an `LD_PRELOAD` shim, for instance); `web: false` when the options (or a
    /// configuration file) turn the web page off.
    public func start(
        options: [String] = [], environment: [String: String]? = nil, web: Bool = true, timeout: Duration = .seconds(20)
    ) async throws {
        if let server, server.isRunning { throw TestFailure("corkd is already running (pid \(server.pid))") }
        let listen = dataDirectory.appendingPathComponent("listen.json")
        try? FileManager.default.removeItem(at: listen)
        let webExpected = web
        let host = options.firstIndex(of: "--host").flatMap { options.indices.contains($0 + 1) ? options[$0 + 1] : nil } ?? "127.0.0.1"
        starts += 1
        healthPort = options.firstIndex(of: "--health").flatMap { options.indices.contains($0 + 1) ? options[$0 + 1] : nil }
            .flatMap { $0.split(separator: ":").last.flatMap { Int($0) } }
        let child = try SpawnedProcess(
            executable: CorkdProcess.executable,
            arguments: ["serve", "--data-dir", dataDirectory.path, "--port", "0", "--log-level", "info"]
                + (options.contains("--host") ? [] : ["--host", "127.0.0.1"]) + CorkdProcess.testDeadlines(besides: options)
                + options,
            logDirectory: logDirectory, name: "corkd-\(starts)", environment: environment, unprivileged: true)
        server = child
        let deadline = ContinuousClock.now + timeout
        while true {
            // `listen.json` and `owner.url` are written first, then the banner on stdout, in one write.
            if let address = CorkdProcess.listenPort(listen),
                child.standardOutput.contains("corkd listening on \(host):\(address)\n")
            {
                let web = CorkdProcess.webPort(listen)
                let expectsWeb = webExpected
                if web != nil || options.contains("--no-web") || !expectsWeb {
                    port = address
                    webPort = web
                    break
                }
            }
            if !child.isRunning {
                let exit = await child.waitForExit(timeout: .seconds(1))
                throw TestFailure(
                    "corkd exited before listening (\(exit?.description ?? "?")); stderr: \(child.standardError.suffix(3000))")
            }
            if ContinuousClock.now >= deadline {
                throw TestFailure("corkd did not listen within \(timeout); stderr: \(child.standardError.suffix(3000))")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        if fingerprint == nil {
            let text = try String(contentsOf: dataDirectory.appendingPathComponent("owner.url"), encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            guard let url = InviteURL(text), let fp = url.fingerprint, let parsed = Fingerprint(fp) else {
                throw TestFailure("owner.url is not an invite URL with a fingerprint: \(text)")
            }
            ownerURL = text
            ownerToken = url.token
            fingerprint = parsed
        }
    }

    /// The handshake and hello deadlines for a test that is not about them: a minute each, unless `options` set
    /// them. At the 5 s defaults a loaded machine (a test process and several servers on two cores) cut connections
    /// of tests about something else while their client waited for a thread.
    public static func testDeadlines(besides options: [String]) -> [String] {
        [("--handshake-timeout-ms", "60000"), ("--auth-timeout-ms", "60000")]
            .filter { !options.contains($0.0) }
            .flatMap { [$0.0, $0.1] }
    }

    /// The handshake and hello deadlines of a corkd started with no options, for a test that shows what such a
    /// server answers (its `welcome.limits`).
    public static let defaultDeadlines = [
        "--handshake-timeout-ms", String(WireLimits().handshakeTimeoutMs), "--auth-timeout-ms", String(WireLimits().authTimeoutMs),
    ]

    /// Sends SIGTERM and waits (bounded) for the exit.
    public func terminate(timeout: Duration = .seconds(10)) async throws -> ProcessExit {
        guard let server else { throw TestFailure("corkd was never started") }
        server.send(signal: SIGTERM)
        guard let exit = await server.waitForExit(timeout: timeout) else {
            throw TestFailure("corkd did not exit within \(timeout) of SIGTERM; stderr: \(server.standardError.suffix(2000))")
        }
        return exit
    }

    /// SIGKILLs the server and waits (bounded) until it is gone.
    @discardableResult
    public func kill9() async throws -> ProcessExit {
        guard let server else { throw TestFailure("corkd was never started") }
        server.send(signal: SIGKILL)
        guard let exit = await server.waitForExit(timeout: .seconds(10)) else {
            throw TestFailure("corkd did not die within 10 s of SIGKILL")
        }
        return exit
    }

    /// Starts the server again on the same data directory (a new port) with `options`; the old process must have
    /// exited.
    public func restart(options: [String] = [], timeout: Duration = .seconds(20)) async throws {
        if let server, server.isRunning { throw TestFailure("restart: corkd (pid \(server.pid)) still runs") }
        try await start(options: options, timeout: timeout)
    }

    /// Runs `corkd` once more on the data directory without waiting for it to listen (a start expected to fail);
    /// returns how it ended, bounded by `timeout`.
    public func startExpectingExit(timeout: Duration) async throws -> (exit: ProcessExit, standardError: String) {
        if let server, server.isRunning { throw TestFailure("corkd is already running (pid \(server.pid))") }
        starts += 1
        let child = try SpawnedProcess(
            executable: CorkdProcess.executable,
            arguments: ["serve", "--data-dir", dataDirectory.path, "--port", "0", "--host", "127.0.0.1"]
                + CorkdProcess.testDeadlines(besides: []),
            logDirectory: logDirectory, name: "corkd-\(starts)", unprivileged: true)
        server = child
        guard let exit = await child.waitForExit(timeout: timeout) else {
            throw TestFailure("corkd still runs \(timeout) after starting on this store; it should have refused to serve")
        }
        return (exit, child.standardError)
    }

    /// Runs a `corkd` admin subcommand (`invite`, `revoke`) on the data directory, bounded.
    public func admin(_ arguments: [String], timeout: Duration = .seconds(20)) async throws -> SpawnedProcess.Result {
        commands += 1
        return try await SpawnedProcess.run(
            CorkdProcess.executable, arguments + ["--data-dir", dataDirectory.path], timeout: timeout,
            logDirectory: logDirectory, name: "admin-\(commands)-\(arguments.first ?? "")", unprivileged: true)
    }

    /// Launches a `corkd` admin subcommand without waiting for it; the caller reaps it (`killAndReap`).
    public func launchAdmin(_ arguments: [String]) throws -> SpawnedProcess {
        commands += 1
        return try SpawnedProcess(
            executable: CorkdProcess.executable, arguments: arguments + ["--data-dir", dataDirectory.path],
            logDirectory: logDirectory, name: "admin-\(commands)-\(arguments.first ?? "")", unprivileged: true)
    }

    /// `corkd invite --user U --role R`: the printed invite URL, parsed.
    public func invite(_ user: String, role: String = "editor") async throws -> InviteURL {
        let result = try await admin(["invite", "--user", user, "--role", role])
        guard result.exit.isSuccess else {
            throw TestFailure("corkd invite --user \(user) failed (\(result.exit)): \(result.standardError)")
        }
        let text = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let url = InviteURL(text) else { throw TestFailure("corkd invite printed no invite URL: \(text)") }
        return url
    }

    /// The port in `listen.json` (`{"host":…,"port":…}`), once the server has written it.
    public static func listenPort(_ file: URL) -> Int? {
        guard let data = try? Data(contentsOf: file),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let port = object["port"] as? Int, port > 0
        else { return nil }
        return port
    }

    /// The port of listen.json's `web_url`, if any.
    public static func webPort(_ file: URL) -> Int? {
        guard let data = try? Data(contentsOf: file), let record = try? JSONDecoder().decode(ListenRecord.self, from: data)
        else { return nil }
        return record.webURL.flatMap(URL.init(string:))?.port
    }

    /// SIGKILLs the server if it still runs and removes the temporary directory.
    public func cleanup() {
        server?.killAndReap()
        try? FileManager.default.removeItem(at: root)
    }
}

/// Runs `body` with a freshly started real `corkd`; whatever happens, the process is gone and its directory removed
/// when this returns.
public func withCorkd<T>(options: [String] = [], _ body: (CorkdProcess) async throws -> T) async throws -> T {
    let corkd = try CorkdProcess()
    defer { corkd.cleanup() }
    try await corkd.start(options: options)
    return try await body(corkd)
}
