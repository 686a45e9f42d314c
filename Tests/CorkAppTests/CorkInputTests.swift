import BoardTesting
import Foundation
import Testing

/// No crash on I/O: `cork import -` reads stdin that cannot be read (a directory, a closed
/// descriptor) and must fail with a message and exit 1, never trap (`readDataToEndOfFile` is a `try!` inside
/// Foundation).
@Suite(.serialized, .startsProcesses(within: .minutes(1))) struct CorkInputTests {
    /// Sets up stdin, then `exec`s cork.
    static let shim = """
        import os, sys
        mode = sys.argv[1]
        if mode == "directory":
            fd = os.open("/", os.O_RDONLY)
            os.dup2(fd, 0)
            os.close(fd)
        elif mode == "closed":
            os.close(0)
        os.execv(sys.argv[2], sys.argv[2:])
        """

    @Test(arguments: ["directory", "closed"])
    func importFromAnUnreadableStdinFailsWithExitOne(_ mode: String) async throws {
        let python = try Unprivileged.tool("python3")
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        let cork = try Unprivileged.reachable(CorkProcess.executable)
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = corkd.root.appendingPathComponent("config").path
        environment["HOME"] = corkd.root.path
        environment["CORK_URL"] = "cork://127.0.0.1:1/main#ck_" + String(repeating: "A", count: 43)
        let result = try await SpawnedProcess.run(
            python, ["-c", Self.shim, mode, cork.path, "import", "-"], logDirectory: corkd.logDirectory,
            name: "cork-import-\(mode)", environment: environment, unprivileged: true)
        #expect(result.exit.reason == .exit, "cork died: \(result.exit); stderr: \(result.standardError.suffix(1000))")
        #expect(result.exit.status == 1, "\(result.exit); stderr: \(result.standardError.suffix(1000))")
        #expect(result.standardError.contains("cannot read -"), "\(result.standardError)")
    }
}
