import BoardTesting
import Foundation
import Testing

/// `corkd serve --exit-with-parent` (what `cork-load --spawn` starts) ends when its parent is gone, also when the
/// parent died while corkd was still starting: it had read its parent after the set-up, took the process it was
/// handed to for the parent, and ran on as an orphan.
@Suite(.startsProcesses(within: .minutes(1))) struct ExitWithParentTests {
    @Test func aCorkdWhoseParentDiedDuringItsStartEndsAnyway() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("exit-with-parent-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: root.path)
        defer { try? FileManager.default.removeItem(at: root) }
        let data = root.appendingPathComponent("data")
        let corkd = try Unprivileged.shellCommand(
            CorkdProcess.executable,
            ["serve", "--config", "/dev/null", "--data-dir", data.path, "--port", "0", "--web-port", "0", "--no-mail", "--exit-with-parent"])
        // The shell starts corkd in the background and exits at once: corkd's parent is gone before it listens.
        let shell = try await SpawnedProcess.run(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "\(corkd) >/dev/null 2>&1 & exit 0"], timeout: .seconds(20),
            logDirectory: root.appendingPathComponent("logs"), name: "sh")
        #expect(shell.exit.isSuccess)
        func running() -> Bool {
            let found = try? SpawnedProcessProbe.matching(data.path)
            return !(found ?? []).isEmpty
        }
        // It did start: it opened its store.
        let started = ContinuousClock.now + .seconds(20)
        while !FileManager.default.fileExists(atPath: data.appendingPathComponent("corkd.sqlite").path), ContinuousClock.now < started {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(FileManager.default.fileExists(atPath: data.appendingPathComponent("corkd.sqlite").path), "corkd never started")
        let deadline = ContinuousClock.now + .seconds(30)
        while running(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(200)) }
        let left = running()
        if left { _ = try? SpawnedProcessProbe.kill(matching: data.path) }
        #expect(!left, "corkd still runs 30 s after its parent died")
    }
}

/// Processes found by their command line (/proc), for a process the test did not start itself.
enum SpawnedProcessProbe {
    static func matching(_ text: String) throws -> [Int32] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc").compactMap { Int32($0) }.filter { pid in
            guard let line = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            return String(decoding: line, as: UTF8.self).replacingOccurrences(of: "\0", with: " ").contains(text)
                && pid != getpid()
        }
    }

    static func kill(matching text: String) throws {
        for pid in try matching(text) { Foundation.kill(pid, SIGKILL) }
    }
}
