import BoardTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The command lines of README.md's `sh` blocks, run as written in a checkout's layout (`.build/debug`'s binaries
/// in place of `swift run`, and `corkd-data` linked to a running corkd's), and its bot, so the front page cannot
/// drift from the product. The lines not run here are named with where they are run.
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
        ("swift build", "the suite's own build: the checkout's .build/debug links to its binaries"),
        ("CORK_URL='cork://…' python3 Examples/triage_bot.py", "thePagesBotIsTheExampleAndRunsAsWritten"),
    ]

    /// The full-screen client, which needs a terminal: `TUIProcessTests` run it in tmux.
    static let fullScreen = "cork"

    /// The page's one `python` block.
    static func pythonBlock() throws -> String {
        let page = try String(contentsOf: CorkdProcess.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let blocks = page.components(separatedBy: "```python\n").dropFirst()
        guard blocks.count == 1, let block = blocks.first, let end = block.range(of: "```") else {
            throw TestFailure("README.md should have one python block; it has \(blocks.count)")
        }
        return String(block[..<end.lowerBound])
    }

    /// The page's line that starts with `prefix`.
    static func line(_ prefix: String) throws -> String {
        guard let line = try commandLines().first(where: { $0.hasPrefix(prefix) }) else {
            throw TestFailure("README.md has no command line starting with \(prefix)")
        }
        return line
    }

    /// An admin line of the page (`swift run corkd …`) as a shell where the page's `export` was done runs it.
    static func onPath(_ line: String) throws -> String {
        guard line.hasPrefix("swift run corkd ") else { throw TestFailure("not a `swift run corkd` line: \(line)") }
        return "corkd " + line.dropFirst("swift run corkd ".count)
    }

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
            var exported = false
            var joined = false
            for line in lines.dropFirst() {
                if let other = Self.elsewhere.first(where: { line.hasPrefix($0.match) || line.contains($0.match) }) {
                    print("README: not run here (\(other.where)): \(line)")
                    continue
                }
                if line == Self.fullScreen {
                    #expect(joined, "the page opens the board before it joins")
                    print("README: not run here (the full-screen client: TUIProcessTests run it in tmux): \(line)")
                    continue
                }
                if line == #"export PATH="$PWD/.build/debug:$PATH""# {
                    exported = true
                    continue
                }
                if line.hasPrefix("cork ") {
                    // In the shell where the page's export was done: `cork` is the checkout's.
                    #expect(exported, "the page runs \(line) before it puts cork on PATH")
                    let result = try await checkout.run(line, exported: exported, name: "readme-\(ran)")
                    #expect(result.exit.isSuccess, "\(line): \(result.exit); \(result.standardOutput) \(result.standardError)")
                    joined = joined || (line.hasPrefix("cork join ") && result.exit.isSuccess)
                    ran += 1
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
            #expect(ran >= 7, "the page's admin lines and its cork join ran: \(ran)")
            #expect(joined, "the page's cork join line joined")
            #expect(FileManager.default.fileExists(atPath: checkout.directory.appendingPathComponent("corkd-backup.sqlite").path))
        }
    }

    @Test func thePagesBotIsTheExampleAndRunsAsWritten() async throws {
        _ = try SpawnedProcess.tool("python3")
        let example = try String(
            contentsOf: CorkdProcess.packageRoot.appendingPathComponent("Examples/triage_bot.py"), encoding: .utf8)
        #expect(try Self.pythonBlock() == example, "README.md's bot is Examples/triage_bot.py as it is")
        let command = try Self.line("CORK_URL='cork://…' python3 Examples/triage_bot.py")
        #expect(try ExamplesReadmeTests.line("CORK_URL='cork://…' python3 Examples/triage_bot.py") == command)
        try await withCorkd { corkd in
            let checkout = try ExamplesReadmeTests.Checkout(corkd)
            // alice, to whom the bot gives the bugs, invited as the page's admin lines invite her
            _ = try await checkout.invite(try Self.onPath(try Self.line("swift run corkd invite --user alice")))
            let url = try await checkout.invite(try Self.onPath(try Self.line("swift run corkd invite --user triage")))
            let join = try await checkout.run(try Self.line("cork join "), exported: true, name: "readme-join")
            #expect(join.exit.isSuccess, "\(join.exit); \(join.standardError)")
            let owner = try await OwnerSession.open(corkd)
            let bot = try checkout.launch(
                try ExamplesReadmeTests.with(url, command),
                exported: true, name: "readme-triage-bot")
            defer { Self.stop(bot) }
            let following = await bot.waitForStandardError(containing: "as triage", timeout: .seconds(20))
            try #require(following, "stdout: \(bot.standardOutput) stderr: \(bot.standardError)")
            // A card that is not a bug, then the page's bug: the bot answers the second only.
            for line in [#"cork add "Docs typo""#, #"cork add "Crash on empty title" --label bug"#] {
                let added = try await checkout.run(line, exported: true, name: "readme-add")
                #expect(added.exit.isSuccess, "\(line): \(added.exit); \(added.standardError)")
            }
            #expect(try await owner.nextChat(from: "triage") == "#2 is a bug: @alice has it")
            let shown = try await checkout.run("cork show 2 --json", exported: true, name: "readme-show")
            #expect(shown.standardOutput.contains(#""assignees":["alice"]"#), "\(shown.standardOutput)")
            let other = try await checkout.run("cork show 1 --json", exported: true, name: "readme-show")
            #expect(other.standardOutput.contains(#""assignees":[]"#), "\(other.standardOutput)")
            // Its access revoked, the bot ends with cork watch's status (4), not 0: a supervisor sees that it died.
            _ = try await corkd.admin(["revoke", "--user", "triage"])
            let ended = await bot.waitForExit(timeout: .seconds(30))
            #expect(ended?.reason == .exit && ended?.status == 4, "\(String(describing: ended)) \(bot.standardError)")
            await owner.close()
        }
    }

    /// Kills the bot and the `cork watch` it started (a killed script leaves its children running), and waits
    /// (bounded) until they are gone.
    static func stop(_ bot: SpawnedProcess) {
        var family: [Int32] = []
        var next = [bot.pid]
        while let pid = next.popLast() {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
            for task in tasks {
                let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
                let pids = children.split(separator: " ").compactMap { Int32($0) }
                family += pids
                next += pids
            }
        }
        bot.killAndReap()
        for pid in family { _ = kill(pid, SIGKILL) }
        let deadline = ContinuousClock.now + .seconds(10)
        func alive(_ pid: Int32) -> Bool {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
            return stat.range(of: ") Z ") == nil
        }
        while family.contains(where: alive), ContinuousClock.now < deadline { usleep(20_000) }
    }
}
