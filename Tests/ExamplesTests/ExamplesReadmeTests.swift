import BoardTesting
import BoardWire
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The command lines of `Examples/README.md`, run exactly as written: a documented command that is not run drifts
/// (`Examples/ci-bot.sh` as documented once failed with `cork: command not found`, unnoticed).
///
/// Each runs in bash, as nobody under a root test run, in a copy of a checkout's layout (`Examples/` copied and the
/// binaries of `.build/debug` linked from this package, and the
/// documented default data directory `corkd-data` linked to a running corkd's), with a `PATH` that holds no
/// Corkboard binary and a fresh `HOME`: only what the page says to do puts anything on `PATH`. The one thing not run
/// literally is `corkd` itself, which a test starts on port 0 instead of 7420.
@Suite(.serialized, .startsProcesses(within: .minutes(3))) struct ExamplesReadmeTests {
    /// Every line of the page's `sh` blocks, as written.
    static func commandLines() throws -> [String] {
        let page = try String(
            contentsOf: CorkdProcess.packageRoot.appendingPathComponent("Examples/README.md"), encoding: .utf8)
        var lines: [String] = []
        var inside = false
        for line in page.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                inside = !inside && line == "```sh"
            } else if inside {
                lines.append(String(line))
            }
        }
        return lines
    }

    /// The documented line that starts with `prefix`, without its trailing comment.
    static func line(_ prefix: String) throws -> String {
        guard let line = try commandLines().first(where: { $0.hasPrefix(prefix) }) else {
            throw TestFailure("Examples/README.md has no command line starting with \(prefix)")
        }
        guard let comment = line.range(of: "  #") else { return line }
        return String(line[..<comment.lowerBound]).trimmingCharacters(in: .whitespaces)
    }

    /// A checkout's layout around a running corkd: `Examples`, `.build` and `corkd-data` in `corkd.root`.
    struct Checkout {
        let corkd: CorkdProcess
        let home: URL
        var directory: URL { corkd.root }

        /// The binaries the page's commands use, as a build leaves them in `.build/debug`.
        static let binaries = ["corkd", "cork", "cork-swift-bot"]

        init(_ corkd: CorkdProcess) throws {
            self.corkd = corkd
            let files = FileManager.default
            let root = CorkdProcess.packageRoot
            // A copy of Examples/ and a .build/debug of links: under a root test run everything runs as nobody, who
            // may not be able to enter the real checkout (Unprivileged stages the binaries then).
            try files.copyItem(at: root.appendingPathComponent("Examples"), to: corkd.root.appendingPathComponent("Examples"))
            let debug = corkd.root.appendingPathComponent(".build/debug")
            try files.createDirectory(at: debug, withIntermediateDirectories: true)
            for name in Self.binaries {
                let binary = try Unprivileged.reachable(root.appendingPathComponent(".build/debug/\(name)"))
                try files.createSymbolicLink(at: debug.appendingPathComponent(name), withDestinationURL: binary)
            }
            try files.createSymbolicLink(at: corkd.root.appendingPathComponent("corkd-data"), withDestinationURL: corkd.dataDirectory)
            home = corkd.root.appendingPathComponent("home")
            try files.createDirectory(at: home, withIntermediateDirectories: true)
            try Unprivileged.handOver(corkd.root)
        }

        /// This process's environment without Corkboard's variables and binaries, with `HOME` fresh; with
        /// `exported`, the page's `export PATH="$PWD/.build/debug:$PATH"` done in the checkout.
        func environment(exported: Bool) -> [String: String] {
            var environment = ProcessInfo.processInfo.environment
            for name in ["CORK_URL", "CORK", "XDG_CONFIG_HOME", "XDG_STATE_HOME"] { environment[name] = nil }
            let path = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
                .filter { !$0.contains(".build") && !FileManager.default.isExecutableFile(atPath: "\($0)/cork") }
                .joined(separator: ":")
            environment["PATH"] = exported ? directory.appendingPathComponent(".build/debug").path + ":" + path : path
            environment["HOME"] = home.path
            return environment
        }

        /// Runs `line` with bash in the checkout, to completion.
        func run(_ line: String, exported: Bool, name: String) async throws -> SpawnedProcess.Result {
            try await SpawnedProcess.run(
                try SpawnedProcess.tool("env"), ["-C", directory.path, "bash", "-c", line], timeout: .seconds(60),
                logDirectory: corkd.logDirectory, name: name, environment: environment(exported: exported), unprivileged: true)
        }

        /// Starts `line` with bash in the checkout; bash runs a simple command by replacing itself with it.
        func launch(_ line: String, exported: Bool, name: String) throws -> SpawnedProcess {
            try SpawnedProcess(
                executable: try SpawnedProcess.tool("env"), arguments: ["-C", directory.path, "bash", "-c", line],
                logDirectory: corkd.logDirectory, name: name, environment: environment(exported: exported),
                unprivileged: true)
        }

        /// The documented `corkd invite …` line, run as written; the URL it printed.
        func invite(_ line: String) async throws -> String {
            let result = try await run(line, exported: true, name: "readme-invite")
            guard result.exit.isSuccess, let url = InviteURL(result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw TestFailure("\(line): \(result.exit); \(result.standardOutput) \(result.standardError)")
            }
            return url.description
        }
    }

    /// `line` with the page's `'cork://…'` replaced by `url`.
    static func with(_ url: String, _ line: String) throws -> String {
        guard line.contains("'cork://…'") else { throw TestFailure("\(line) has no 'cork://…'") }
        return line.replacingOccurrences(of: "'cork://…'", with: "'\(url)'")
    }

    @Test func thePageSaysToBuildAndPutTheBinariesOnPath() throws {
        let lines = try Self.commandLines()
        #expect(lines.first?.hasPrefix("swift build") == true, "\(lines)")
        #expect(try Self.line("export PATH=") == #"export PATH="$PWD/.build/debug:$PATH""#)
    }

    @Test func ciBotRunsAsDocumentedWithAndWithoutTheExport() async throws {
        try await withCorkd { corkd in
            let checkout = try Checkout(corkd)
            let url = try await checkout.invite(try Self.line("corkd invite --user bot --role bot"))
            let documented = try Self.with(url, try Self.line("CORK_URL='cork://…' Examples/ci-bot.sh"))
            let exported = try await checkout.run(documented, exported: true, name: "readme-ci-bot")
            #expect(exported.exit.isSuccess, "\(documented): \(exported.exit); \(exported.standardError)")
            #expect(exported.standardOutput.contains("#1 (ci:build-1207) build passed, moved to DONE"), "\(exported.standardOutput)")
            // In a shell where the export was not done: the checkout's own build is found.
            let plain = try await checkout.run(documented, exported: false, name: "readme-ci-bot-no-path")
            #expect(plain.exit.isSuccess, "\(documented) without the export: \(plain.exit); \(plain.standardError)")
            #expect(plain.standardOutput.contains("#1 (ci:build-1207) build passed, moved to DONE"), "\(plain.standardOutput)")
        }
    }

    @Test func thePythonBotRunsAsDocumented() async throws {
        _ = try SpawnedProcess.tool("python3")
        try await withCorkd { corkd in
            let checkout = try Checkout(corkd)
            let url = try await checkout.invite(try Self.line("corkd invite --user bot --role bot"))
            let owner = try await OwnerSession.open(corkd)
            let bot = try checkout.launch(
                try Self.with(url, try Self.line("CORK_URL='cork://…' python3 Examples/python_bot.py")), exported: true,
                name: "readme-python-bot")
            defer { bot.killAndReap() }
            let following = await bot.waitForOutput(containing: "following main", timeout: .seconds(20))
            try #require(following, "stdout: \(bot.standardOutput) stderr: \(bot.standardError)")
            try await owner.chat("@bot help")
            #expect(try await owner.nextChat(from: "bot").contains("@bot summary"))
            bot.send(signal: SIGTERM)
            #expect(await bot.waitForExit(timeout: .seconds(10))?.isSuccess == true, "\(bot.standardError)")

            let once = try await checkout.run(
                try Self.with(url, try Self.line("CORK_URL='cork://…' python3 Examples/python_bot.py --summary")),
                exported: true, name: "readme-python-summary")
            #expect(once.exit.isSuccess, "\(once.exit); \(once.standardError)")
            #expect(try await owner.nextChat(from: "bot").hasPrefix("summary of Main"))
            await owner.close()
        }
    }

    @Test func theSwiftBotRunsAsDocumented() async throws {
        try await withCorkd { corkd in
            let checkout = try Checkout(corkd)
            let url = try await checkout.invite(try Self.line("corkd invite --user donebot --role bot"))
            let owner = try await OwnerSession.open(corkd)
            let bot = try checkout.launch(
                try Self.with(url, try Self.line("CORK_URL='cork://…' cork-swift-bot")), exported: true,
                name: "readme-swift-bot")
            defer { bot.killAndReap() }
            let following = await bot.waitForOutput(containing: "following", timeout: .seconds(20))
            try #require(following, "stdout: \(bot.standardOutput) stderr: \(bot.standardError)")
            try await owner.chat("@donebot status")
            #expect(try await owner.nextChat(from: "donebot") == "TODO 0 · DOING 0 · DONE 0")
            #expect(FileManager.default.fileExists(atPath: checkout.home.appendingPathComponent(".local/state/donebot.json").path))
            await owner.close()
        }
    }
}
