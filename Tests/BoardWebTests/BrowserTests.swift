import BoardTesting
import Foundation
import Testing

/// The web board in a real headless Chromium (Tests/Web/board_e2e.py: two browser users and a `cork` user on one
/// board, drags, a WIP refusal and undo, a restart after kill -9, hostile strings, the testability contract,
/// screenshots). Needs Debian's chromium and chromium-driver and Python's selenium, which `.ci/run` installs; where
/// they are missing the test says so and does not run, except under CI, where it fails.
@Suite(.serialized, .enabled(if: Browser.available, "needs chromium, chromium-driver and Python's selenium (.ci/run installs them)"), .startsProcesses(within: .minutes(6)))
struct BrowserTests {
    static let script = CorkdProcess.packageRoot.appendingPathComponent("Tests/Web/board_e2e.py")
    /// Where the test run's screenshots go (PNG at 1280×800 and 375×812): under .build, so a run leaves the tree
    /// clean; bench/results/web/ holds the ones the docs show, from `python3 Tests/Web/board_e2e.py`.
    static let screenshots = CorkdProcess.packageRoot.appendingPathComponent(".build/test-screenshots/web")

    @Test func theBoardWorksInChromiumBesideCork() async throws {
        let python = try SpawnedProcess.tool("python3")
        let logs = FileManager.default.temporaryDirectory.appendingPathComponent("browser-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: logs) }
        let result = try await SpawnedProcess.run(
            python, [Self.script.path, CorkdProcess.executable.path, "--screenshots", Self.screenshots.path],
            timeout: .seconds(300), logDirectory: logs, name: "board-e2e")
        #expect(result.exit.isSuccess, "board_e2e.py: \(result.exit)\n\(result.standardOutput.suffix(3000))\n\(result.standardError.suffix(3000))")
    }
}

/// Whether headless Chromium, its driver and Python's selenium are here.
enum Browser {
    /// Under CI (`CI=true`) the test always runs, so a machine without the browser fails it instead of skipping it.
    static var available: Bool {
        if ProcessInfo.processInfo.environment["CI"].map({ !$0.isEmpty && $0 != "false" }) == true { return true }
        let driver = ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"].contains {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard driver, FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"),
            let python = try? SpawnedProcess.tool("python3")
        else { return false }
        let probe = Process()
        probe.executableURL = python
        probe.arguments = ["-c", "import selenium"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }
}
