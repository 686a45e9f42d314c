import BoardTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The helper that runs the real binaries as nobody under a root test run (CI): it must really drop root, and it
/// must cope with a clone that nobody can enter.
@Suite(.startsProcesses(within: .minutes(3)), .serialized) struct UnprivilegedTests {
    @Test func aCommandRunsAsNobodyWhenTheTestsRunAsRoot() async throws {
        let logs = FileManager.default.temporaryDirectory.appendingPathComponent("unprivileged-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: logs) }
        let result = try await SpawnedProcess.run(
            URL(fileURLWithPath: "/usr/bin/id"), ["-u"], logDirectory: logs, name: "id", unprivileged: true)
        let uid = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(uid == (Unprivileged.isActive ? "65534" : "\(geteuid())"), "\(result.standardError)")
    }

    @Test(.enabled(if: Unprivileged.isActive, "staging matters only when the tests run as root"))
    func aBinaryInADirectoryOthersCannotEnterIsStagedWhereTheyCan() async throws {
        let closed = FileManager.default.temporaryDirectory.appendingPathComponent("closed-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: closed) }
        try FileManager.default.createDirectory(at: closed, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let program = closed.appendingPathComponent("cork-probe")
        try Data("#!/bin/sh\nid -u\n".utf8).write(to: program)
        chmod(program.path, 0o755)
        let staged = try Unprivileged.reachable(program)
        #expect(staged != program && !staged.path.hasPrefix(closed.path))
        let logs = closed.appendingPathComponent("logs")
        let result = try await SpawnedProcess.run(program, [], logDirectory: logs, name: "probe", unprivileged: true)
        #expect(result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "65534", "\(result.standardError)")
    }

    /// A data directory its user cannot write is refused at start (exit 2, a message that says so) rather than
    /// served: SQLite can write an existing store there while `listen.json`, `owner.url` and the marks cannot be
    /// (found by a newcomer run: a directory chmod 500 served and acknowledged ops). Root may write anywhere, so
    /// the check runs as nobody under a root test run, and as the test's own user otherwise.
    @Test(.enabled(if: Unprivileged.isActive || geteuid() != 0, "root writes anywhere"))
    func aDataDirectoryItsUserCannotWriteIsRefused() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("readonly-\(UUID().uuidString)")
        defer {
            chmod(root.appendingPathComponent("data").path, 0o700)
            try? FileManager.default.removeItem(at: root)
        }
        let data = root.appendingPathComponent("data")
        let logs = root.appendingPathComponent("logs")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        if Unprivileged.isActive { try Unprivileged.handOver(root) }
        chmod(data.path, 0o500)
        let result = try await SpawnedProcess.run(
            CorkdProcess.executable, ["serve", "--data-dir", data.path, "--host", "127.0.0.1", "--port", "0"],
            logDirectory: logs, name: "corkd-readonly", unprivileged: true)
        #expect(result.exit.reason == .exit && result.exit.status == 2, "\(result.exit): \(result.standardError)")
        #expect(result.standardError.contains("is not writable by this user"), "\(result.standardError)")
    }

    /// A data directory root made for the service (`mkdir /var/lib/corkd` before the user existed) is refused with
    /// the command that fixes it, a chown, not a chmod the service's user could not run; and the admin commands say
    /// the same, not that there is no store.
    @Test(.enabled(if: Unprivileged.isActive, "needs root to own the directory and nobody to run corkd"))
    func aDataDirectoryOwnedByAnotherUserNamesTheChown() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("rootowned-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let data = root.appendingPathComponent("data")
        let logs = root.appendingPathComponent("logs")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        try Unprivileged.handOver(logs)
        chmod(root.path, 0o755)
        chmod(data.path, 0o700)
        let serve = try await SpawnedProcess.run(
            CorkdProcess.executable, ["serve", "--data-dir", data.path, "--host", "127.0.0.1", "--port", "0"],
            logDirectory: logs, name: "corkd-rootowned", unprivileged: true)
        #expect(serve.exit.reason == .exit && serve.exit.status == 2, "\(serve.exit): \(serve.standardError)")
        #expect(serve.standardError.contains("it belongs to root: chown -R nobody \(data.path)"), "\(serve.standardError)")
        let invite = try await SpawnedProcess.run(
            CorkdProcess.executable, ["invite", "--data-dir", data.path, "--user", "alice", "--config", "/dev/null"],
            logDirectory: logs, name: "corkd-rootowned-invite", unprivileged: true)
        #expect(invite.exit.status == 1, "\(invite.exit): \(invite.standardError)")
        #expect(invite.standardError.contains("cannot open \(data.path) as nobody: Permission denied"), "\(invite.standardError)")
        #expect(!invite.standardError.contains("no store in"), "\(invite.standardError)")
        let backup = try await SpawnedProcess.run(
            CorkdProcess.executable,
            ["backup", "--data-dir", data.path, "--to", logs.appendingPathComponent("copy.sqlite").path, "--config", "/dev/null"],
            logDirectory: logs, name: "corkd-rootowned-backup", unprivileged: true)
        #expect(backup.standardError.contains("cannot open \(data.path) as nobody: Permission denied"), "\(backup.standardError)")
    }
}
