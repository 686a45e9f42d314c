import BoardTesting
import Foundation
import Testing

/// The command lines of README.md's `sh` blocks, run as written in a checkout's layout (`.build/debug`'s binaries
/// in place of `swift run`, and `corkd-data` linked to a running corkd's), so the front page cannot drift from the
/// product. The lines not run here are named with where they are run.
@Suite(.serialized, .startsProcesses(within: .minutes(3))) struct ReadmeCommandTests {
    /// Every line of README.md's `sh` blocks, without its comment.
    static func commandLines() throws -> [String] {
        let page = try String(contentsOf: CorkdProcess.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        var lines: [String] = []
        var inside = false
        for line in page.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                inside = !inside && line == "```sh"
            } else if inside, !line.trimmingCharacters(in: .whitespaces).isEmpty {
                let text = String(line)
                let command = text.range(of: "  #").map { String(text[..<$0.lowerBound]) } ?? text
                lines.append(command.trimmingCharacters(in: .whitespaces))
            }
        }
        return lines
    }

    /// Lines run elsewhere, by what they start with or contain, and where.
    static let elsewhere: [(match: String, where: String)] = [
        ("swift test", "it is this suite (and .ci/run runs it)"),
        ("scripts/test-postgres", "the PostgreSQL tests, when a server is named"),
        ("CORKD_TEST_POSTGRES=", "the PostgreSQL tests, when a server is named"),
        ("postgres://", "PostgresServeTests and StoreMigrationTests, on a throwaway cluster"),
        ("dpkg -i", "scripts/package-test, in .ci/run"),
        ("runuser -u corkd", "scripts/package-test, in .ci/run"),
    ]

    @Test func everyCommandOfTheReadmeRunsAsWritten() async throws {
        let lines = try Self.commandLines()
        // The page's main command: the server on its embedded defaults. `withCorkd` runs that binary (on a free port
        // instead of 7420, as every test does) and the lines below talk to it.
        #expect(lines.first == "swift run corkd", "\(lines)")
        try await withCorkd { corkd in
            let checkout = try ExamplesReadmeTests.Checkout(corkd)
            try "dave editor\nerin viewer\n".write(
                to: checkout.directory.appendingPathComponent("team.txt"), atomically: true, encoding: .utf8)
            try Unprivileged.handOver(checkout.directory)
            var ran = 0
            for line in lines.dropFirst() {
                if let other = Self.elsewhere.first(where: { line.hasPrefix($0.match) || line.contains($0.match) }) {
                    print("README: not run here (\(other.where)): \(line)")
                    continue
                }
                guard line.hasPrefix("swift run corkd ") else {
                    Issue.record("README.md has a command this test does not know how to run: \(line)")
                    continue
                }
                let command = ".build/debug/corkd " + line.dropFirst("swift run corkd ".count)
                let result = try await checkout.run(command, exported: false, name: "readme-\(ran)")
                #expect(result.exit.isSuccess, "\(line): \(result.exit); \(result.standardOutput) \(result.standardError)")
                ran += 1
            }
            #expect(ran >= 5, "the page's admin lines ran: \(ran)")
            #expect(FileManager.default.fileExists(atPath: checkout.directory.appendingPathComponent("corkd-backup.sqlite").path))
        }
    }
}
