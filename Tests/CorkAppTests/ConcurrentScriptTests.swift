import BoardTesting
import Foundation
import Testing

/// Scripts run side by side against one board, as CI jobs do.
@Suite(.serialized, .startsProcesses(within: .minutes(3))) struct ConcurrentScriptTests {
    /// Jobs started at once, each adding a card with a label the board does not have yet: every one's `label.create`
    /// but the first is refused `duplicate_id`, and those jobs failed (exit 3) without their card (3 of 40 and 6 of
    /// 15 in an outside run). The label is there, as each job wanted: every job adds its card.
    @Test func jobsAddingTheSameNewLabelAtOnceAllAddTheirCards() async throws {
        try await withCorkd { corkd in
            let cork = try CorkProcess(corkd, url: corkd.ownerURL)
            let jobs = 16
            // Started together, then awaited: separate processes, as separate CI jobs are.
            let children = try (1...jobs).map { n in
                try SpawnedProcess(
                    executable: CorkProcess.executable,
                    arguments: ["add", "job \(n)", "--ref", "ci:job-\(n)", "--label", "nightly", "--json"],
                    logDirectory: corkd.logDirectory, name: "job-\(n)", environment: cork.environment(url: corkd.ownerURL),
                    unprivileged: true)
            }
            defer { for child in children { child.killAndReap() } }
            var failed: [String] = []
            for (index, child) in children.enumerated() {
                let exit = await child.waitForExit(timeout: .seconds(60))
                if exit?.isSuccess != true { failed.append("job \(index + 1): \(String(describing: exit)) \(child.standardError)") }
            }
            #expect(failed.isEmpty, "\(failed)")
            let found = try await cork.ok(["search", "label:nightly"])
            #expect(found.split(separator: "\n").count == jobs, "\(found)")
        }
    }
}
