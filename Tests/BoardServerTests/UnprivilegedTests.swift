import BoardTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The helper that runs the real binaries as nobody under a root test run (CI): it must really drop root, and it
/// must cope with a clone that nobody can enter.
@Suite(.serialized) struct UnprivilegedTests {
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
}
