import BoardTesting
import BoardTransport
import BoardWire
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A daemon never dies of its own output: the real `corkd` with stdout on `/dev/full`, with stdout
/// closed, and on a pipe whose reader has gone, must serve and exit 0 on SIGTERM.
@Suite(.serialized, .startsProcesses(within: .minutes(2))) struct CorkdOutputTests {
    /// Starts corkd through a Python shim that sets up its stdout and `exec`s it (SIGPIPE back to its default first,
    /// as a shell or a supervisor leaves it).
    static let shim = """
        import os, signal, sys
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        mode = sys.argv[1]
        if mode == "full":
            fd = os.open("/dev/full", os.O_WRONLY)
            os.dup2(fd, 1)
            os.close(fd)
        elif mode == "closed":
            os.close(1)
        elif mode == "broken-pipe":
            r, w = os.pipe()
            os.close(r)
            os.dup2(w, 1)
            os.close(w)
        os.execv(sys.argv[2], sys.argv[2:])
        """

    /// `cork` with a stdout it cannot write says which way it failed and exits 1 (it printed Foundation's "The
    /// operation could not be completed", or wrote into whatever descriptor took fd 1); a reader that went away ends
    /// it quietly with SIGPIPE, like any Unix tool.
    @Test(arguments: [("full", "no space left on its device"), ("closed", "it is closed"), ("broken-pipe", "")])
    func corkSaysWhyItCannotWriteStdout(_ mode: String, _ said: String) async throws {
        let python = try Unprivileged.tool("python3")
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        try await corkd.start()
        let cork = try Unprivileged.reachable(CorkdProcess.executable.deletingLastPathComponent().appendingPathComponent("cork"))
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = corkd.root.appendingPathComponent("config").path
        environment["HOME"] = corkd.root.path
        let result = try await SpawnedProcess.run(
            python, ["-c", Self.shim, mode, cork.path, "show", "--url", corkd.ownerURL],
            logDirectory: corkd.logDirectory, name: "cork-\(mode)", environment: environment, unprivileged: true)
        if mode == "broken-pipe" {
            #expect(result.exit.reason == .uncaughtSignal && result.exit.status == SIGPIPE, "\(result.exit): \(result.standardError)")
            #expect(!result.standardError.contains("cannot write"), "\(result.standardError)")
        } else {
            #expect(result.exit.reason == .exit && result.exit.status == 1, "\(result.exit): \(result.standardError)")
            #expect(result.standardError.contains("cork: cannot write to stdout: \(said)"), "\(result.standardError)")
        }
    }

    @Test(arguments: ["full", "closed", "broken-pipe"])
    func corkdServesAndExitsZeroWhenStdoutCannotBeWritten(_ mode: String) async throws {
        let python = try Unprivileged.tool("python3")
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        let child = try SpawnedProcess(
            executable: python,
            arguments: [
                "-c", Self.shim, mode, try Unprivileged.reachable(CorkdProcess.executable).path, "serve", "--data-dir",
                corkd.dataDirectory.path, "--port", "0", "--host", "127.0.0.1",
            ],
            logDirectory: corkd.logDirectory, name: "corkd-\(mode)", unprivileged: true)
        defer { child.killAndReap() }
        let listen = corkd.dataDirectory.appendingPathComponent("listen.json")
        var port: Int?
        let deadline = ContinuousClock.now + .seconds(20)
        while port == nil, ContinuousClock.now < deadline, child.isRunning {
            port = CorkdProcess.listenPort(listen)
            if port == nil { try await Task.sleep(for: .milliseconds(20)) }
        }
        let port_ = try #require(port, "corkd never listened (\(mode)); stderr: \(child.standardError.suffix(2000))")
        // The banner is written right after listen.json: give it time to hit the bad stdout.
        try await Task.sleep(for: .milliseconds(300))
        if !child.isRunning {
            let exit = await child.waitForExit(timeout: .seconds(1))
            Issue.record("corkd died writing to a \(mode) stdout: \(exit?.description ?? "?"); stderr: \(child.standardError.suffix(1000))")
        }

        let text = try String(contentsOf: corkd.dataDirectory.appendingPathComponent("owner.url"), encoding: .utf8)
        let url = try #require(InviteURL(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        let fingerprint = try #require(url.fingerprint.flatMap(Fingerprint.init))
        let probe = try await WireProbe.connect(port: port_, fingerprint: fingerprint)
        try await probe.send(#"{"type":"hello","version":1,"client":"output-test","token":"\#(url.token)"}"#)
        _ = try await probe.expect(type: "welcome")
        try await probe.send(#"{"type":"op","board":"main","mut":1,"op":{"kind":"chat","text":"still here"}}"#)
        _ = try await probe.expect(type: "ack")
        await probe.close()

        child.send(signal: SIGTERM)
        let exit = await child.waitForExit(timeout: .seconds(10))
        #expect(exit?.isSuccess == true, "after SIGTERM (\(mode)): \(exit?.description ?? "still running"); stderr: \(child.standardError.suffix(2000))")

        // Nothing meant for stdout landed in a file the server had open (a closed fd 1 is reused by the next open).
        try await corkd.start()
        let again = try await WireProbe.connect(port: corkd.port, fingerprint: fingerprint)
        try await again.send(#"{"type":"hello","version":1,"client":"output-test","token":"\#(url.token)"}"#)
        _ = try await again.expect(type: "welcome")
        try await again.send(#"{"type":"subscribe","board":"main"}"#)
        #expect(try await again.expect(type: "snapshot")["seq"] as? Int == 1)
        await again.close()
        #expect(try await corkd.terminate().isSuccess)
    }
}

/// `--version` on every executable: the version from one place, the commit it was built from, the protocol version.
@Suite(.startsProcesses(within: .minutes(1))) struct VersionOutputTests {
    @Test(arguments: ["corkd", "cork", "cork-load", "cork-history"])
    func everyExecutableSaysItsVersionCommitAndProtocol(tool: String) async throws {
        let binary = CorkdProcess.executable.deletingLastPathComponent().appendingPathComponent(tool)
        let logs = FileManager.default.temporaryDirectory.appendingPathComponent("version-\(tool)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: logs) }
        let result = try await SpawnedProcess.run(binary, ["--version"], logDirectory: logs, name: "\(tool)-version")
        #expect(result.exit.isSuccess)
        let line = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let pattern = #"^\#(tool) \#(ProductVersion.version) \(commit ([0-9a-f]{12}|unknown), protocol \#(ProtocolVersion.current)\)$"#
        #expect(line.range(of: pattern, options: .regularExpression) != nil, "\(line)")
    }
}
