import BoardTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the real `cork` binary against a real corkd, with its own `XDG_CONFIG_HOME` and, optionally, `CORK_URL`;
/// under root (CI) as ``Unprivileged/user``, with `HOME` in the test's directory, which that user owns.
final class CorkProcess {
    /// `.build/debug/cork`, built by `swift build --build-tests`.
    static let executable = CorkdProcess.packageRoot.appendingPathComponent(".build/debug/cork")

    let corkd: CorkdProcess
    /// The `XDG_CONFIG_HOME` of every run (a fresh directory under corkd's root).
    let configHome: URL
    /// `CORK_URL` for runs that do not pass their own (nil: unset).
    var url: String?
    private var runs = 0

    init(_ corkd: CorkdProcess, url: String?, configName: String = "config") throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable.path) else {
            throw TestFailure("the cork binary is missing at \(Self.executable.path); run `swift build --build-tests` first")
        }
        self.corkd = corkd
        self.url = url
        configHome = corkd.root.appendingPathComponent(configName)
    }

    /// The child's environment: this process's, without any CORK_URL, plus XDG_CONFIG_HOME and `url`.
    func environment(url: String?, extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["CORK_URL"] = nil
        environment["XDG_CONFIG_HOME"] = configHome.path
        environment["HOME"] = corkd.root.path
        if let url { environment["CORK_URL"] = url }
        return environment.merging(extra) { $1 }
    }

    /// Runs `cork arguments…` to completion (bounded).
    @discardableResult
    func run(_ arguments: [String], url: String?? = nil, timeout: Duration = .seconds(30)) async throws -> SpawnedProcess.Result {
        runs += 1
        return try await SpawnedProcess.run(
            Self.executable, arguments, timeout: timeout, logDirectory: corkd.logDirectory,
            name: "cork-\(runs)-\(arguments.first ?? "")", environment: environment(url: url ?? self.url), unprivileged: true)
    }

    /// Runs a command that must exit 0 and returns its stdout.
    @discardableResult
    func ok(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let result = try await run(arguments)
        #expect(
            result.exit.isSuccess, "cork \(arguments.joined(separator: " ")): \(result.exit); \(result.standardError)",
            sourceLocation: sourceLocation)
        return result.standardOutput
    }

    /// Runs a `--json` command that must exit 0 and returns its one JSON object.
    func json(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String: Any] {
        let output = try await ok(arguments + ["--json"], sourceLocation: sourceLocation)
        #expect(output.hasSuffix("\n") && output.dropLast().split(separator: "\n").count == 1, "one line: \(output)")
        return try Self.object(output)
    }

    /// Expects `cork arguments…` to exit with `code`; returns its stderr.
    @discardableResult
    func fails(
        _ arguments: [String], with code: Int32, url: String?? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String {
        let result = try await run(arguments, url: url)
        #expect(
            result.exit.reason == .exit && result.exit.status == code,
            "cork \(arguments.joined(separator: " ")): \(result.exit), expected \(code); stderr: \(result.standardError)",
            sourceLocation: sourceLocation)
        return result.standardError
    }

    /// Launches `cork arguments…` without waiting (the caller reaps it).
    func launch(_ arguments: [String], name: String) throws -> SpawnedProcess {
        try SpawnedProcess(
            executable: Self.executable, arguments: arguments, logDirectory: corkd.logDirectory, name: name,
            environment: environment(url: url), unprivileged: true)
    }

    /// Launches `cork watch --json` and waits (bounded) until it follows the board (its `presence.state` line).
    func watching(name: String) async throws -> SpawnedProcess {
        let watch = try launch(["watch", "--json"], name: name)
        guard await watch.waitForOutput(containing: #""type":"presence.state""#, timeout: .seconds(20)) else {
            watch.killAndReap()
            throw TestFailure("cork watch did not subscribe: \(watch.standardError)")
        }
        return watch
    }

    /// A JSON object from one line of text.
    static func object(_ text: some StringProtocol) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw TestFailure("not a JSON object: \(text)")
        }
        return object
    }

    /// A TCP port on 127.0.0.1 that nothing listens on: bound, read and closed again.
    static func closedPort() throws -> Int { try LoopbackPort.closed() }
}
