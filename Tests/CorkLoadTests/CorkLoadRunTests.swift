import BoardTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The real `cork-load --spawn` (which starts the real corkd) end to end, small and short.
@Suite(.startsProcesses(within: .minutes(3))) struct CorkLoadRunTests {
    static let executable = CorkdProcess.packageRoot.appendingPathComponent(".build/debug/cork-load")

    func runLoad(
        _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws -> (exit: ProcessExit, report: [String: Any], stderr: String) {
        guard FileManager.default.isExecutableFile(atPath: Self.executable.path) else {
            throw TestFailure("cork-load is missing at \(Self.executable.path); run `swift build --build-tests` first")
        }
        let logs = FileManager.default.temporaryDirectory.appendingPathComponent("cork-load-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: logs) }
        // cork-load, and the corkd it spawns, run as nobody when the tests run as root; by name from PATH, as a user
        // who exported it runs it (so --spawn must find corkd beside the binary, not beside argv[0]).
        let directory = Self.executable.deletingLastPathComponent().path
        let result = try await SpawnedProcess.run(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "PATH=\"$0:$PATH\" exec cork-load \"$@\"", directory] + arguments,
            timeout: .seconds(120), logDirectory: logs, name: "cork-load", environment: environment, unprivileged: true)
        let object = (try? JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8))) as? [String: Any]
        return (result.exit, object ?? [:], result.standardError)
    }

    @Test func twoBoardsConvergeWithFanOutMeasured() async throws {
        let run = try await runLoad([
            "--spawn", "--boards", "2", "--subscribers-per-board", "3", "--publishers", "2", "--window", "4",
            "--duration", "2", "--warmup", "1", "--cards-per-board", "10", "--json",
        ])
        #expect(run.exit.isSuccess, "\(run.stderr.suffix(2000))")
        #expect(run.report["ok"] as? Bool == true)
        let convergence = run.report["convergence"] as? [String: Any]
        #expect(convergence?["converged"] as? Bool == true)
        let boards = convergence?["boards"] as? [[String: Any]] ?? []
        #expect(boards.count == 2)
        for board in boards {
            #expect(board["subscribers_matching"] as? Int == 3)
            #expect((board["deltas_replayed"] as? Int ?? 0) > 0)
            #expect(board["server_hash"] as? String == board["replayed_hash"] as? String)
        }
        #expect((run.report["ops_acked"] as? Int ?? 0) > 0)
        let fanout = run.report["fanout_ms"] as? [String: Any]
        let ack = run.report["ack_ms"] as? [String: Any]
        #expect((fanout?["p50"] as? Double ?? 0) > 0)
        #expect((ack?["p50"] as? Double ?? 0) > 0)
        let sent = (run.report["sent"] as? [String: Int] ?? [:]).values.reduce(0, +)
        #expect(sent > 0)
        #expect((run.report["seq"] as? [String: Any])?["contiguous"] as? Bool == true)
        #expect(run.stderr.contains("measure"))
    }

    /// `--spawn` with `CORKD_STORE` set runs its corkd on that PostgreSQL database. One used before has no first
    /// start, so no owner's URL: cork-load waited 15 s for it and blamed corkd for not listening. It now says the
    /// store is in use, and sets nothing up in it.
    @Test(.enabled(if: PostgresTestDatabase.isEnabled))
    func aSpawnOnAPostgresDatabaseInUseSaysSo() async throws {
        try await PostgresTestDatabase.withDatabase { location in
            let password = location.password.map { ":\($0)" } ?? ""
            var environment = ProcessInfo.processInfo.environment
            environment["CORKD_STORE"] = "postgres://\(location.user)\(password)@\(location.host):\(location.port)/\(location.database)"
            let arguments = ["--spawn", "--publishers", "1", "--subscribers-per-board", "1", "--duration", "1", "--warmup", "0", "--json"]
            let first = try await runLoad(arguments, environment: environment)
            #expect(first.exit.isSuccess, "\(first.stderr.suffix(2000))")
            let second = try await runLoad(arguments, environment: environment)
            #expect(second.exit.reason == .exit && second.exit.status == 1, "\(second.exit)")
            #expect(second.stderr.contains("corkd started on a store that is in use"), "\(second.stderr.suffix(2000))")
            #expect(!second.stderr.contains("did not start listening"), "\(second.stderr.suffix(2000))")
        }
    }

    @Test func spawnSetsTheServerUpThroughCorkdsOwnAdminCommands() async throws {
        // A board of more than 1,000 members (1,000 idle connections, 2 subscribers, a publisher and the owner), as
        // the load tests need; the idle connections do not subscribe, which keeps this short in a debug build.
        let run = try await runLoad([
            "--spawn", "--boards", "1", "--subscribers-per-board", "2", "--publishers", "1", "--idle", "1000",
            "--no-idle-subscribe", "--window", "2", "--duration", "1", "--warmup", "1", "--cards-per-board", "10",
            "--keep-data", "--json",
        ])
        let data = try #require(
            run.stderr.split(separator: "\n").first { $0.contains(", data in ") }.map { String($0[$0.range(of: ", data in ")!.upperBound...]) },
            "\(run.stderr.suffix(2000))")
        defer { try? FileManager.default.removeItem(atPath: data) }
        #expect(run.exit.isSuccess, "\(run.stderr.suffix(2000))")
        #expect(run.report["ok"] as? Bool == true)
        #expect(run.stderr.contains("set up with corkd board create and corkd invite --users-file"), "\(run.stderr.suffix(2000))")
        // What an operator's commands leave behind: the board created and every member added by corkd's admin queue
        // (applied by the running server, one member.set each), none written into the store around the server.
        let sqlite3 = try SpawnedProcess.tool("sqlite3")
        func query(_ sql: String) async throws -> String {
            let result = try await SpawnedProcess.run(
                sqlite3, ["-readonly", data + "/corkd.sqlite", sql], logDirectory: URL(fileURLWithPath: data), name: "sqlite3")
            return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(try await query("SELECT count(*) FROM admin WHERE command LIKE '%createBoard%' AND done_at IS NOT NULL AND failure IS NULL") == "1")
        #expect(try await query("SELECT count(*) FROM admin WHERE command LIKE '%addMember%' AND done_at IS NOT NULL AND failure IS NULL") == "1003")
        #expect(try await query("SELECT count(*) FROM events WHERE board = 'load-0' AND kind = 'member.set' AND actor = 'corkd'") == "1003")
        #expect(try await query("SELECT count(*) FROM snapshots WHERE board = 'load-0' AND seq = 0 AND state LIKE '%idle999%'") == "0")
    }

    @Test func badArgumentsAreAUsageError() async throws {
        let run = try await runLoad(["--spawn", "--url", "cork://x"])
        #expect(run.exit.reason == .exit && run.exit.status == 64, "\(run.exit)")
        // An unknown option is named as such, not as a missing --spawn.
        let unknown = try await runLoad(["--bogus"])
        #expect(unknown.exit.reason == .exit && unknown.exit.status == 64, "\(unknown.exit)")
        #expect(unknown.stderr.hasPrefix("cork-load: Unknown option '--bogus'"), "\(unknown.stderr)")
        // A bad line of a --urls-file is named by its number.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("urls-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: file) }
        try "# accounts\ncork://127.0.0.1:1/main?token=abc\n\nnot-a-url\n".write(to: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        let urls = try await runLoad(["--urls-file", file.path])
        #expect(urls.exit.reason == .exit && urls.exit.status == 64, "\(urls.exit)")
        #expect(urls.stderr.contains("\(file.path) line 4: invalid_url"), "\(urls.stderr)")
        // `-` reads the same list from standard input.
        let directory = Self.executable.deletingLastPathComponent().path
        let logs = FileManager.default.temporaryDirectory.appendingPathComponent("cork-load-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: logs) }
        let piped = try await SpawnedProcess.run(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "PATH=\"$0:$PATH\" exec cork-load --urls-file - < \"$1\"", directory, file.path],
            timeout: .seconds(60), logDirectory: logs, name: "cork-load", unprivileged: true)
        #expect(piped.exit.status == 64 && piped.standardError.contains("- line 4: invalid_url"), "\(piped.exit) \(piped.standardError)")
    }

    /// With too few open files to start corkd, --spawn failed with Foundation's "Bad file descriptor"; it is a usage
    /// error that says what to raise. A soft limit below the hard one is raised, so the same run then works.
    @Test func tooFewOpenFilesForASpawnIsAUsageError() async throws {
        let logs = FileManager.default.temporaryDirectory.appendingPathComponent("cork-load-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: logs) }
        let arguments = ["--spawn", "--publishers", "1", "--subscribers-per-board", "1", "--duration", "1", "--warmup", "0"]
        let low = try await SpawnedProcess.run(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "ulimit -n 250 && exec \"$0\" \"$@\"", Self.executable.path] + arguments,
            timeout: .seconds(120), logDirectory: logs, name: "cork-load-low", unprivileged: true)
        #expect(low.exit.reason == .exit && low.exit.status == 64, "\(low.exit) \(low.standardError.suffix(500))")
        #expect(low.standardError.contains("--spawn needs at least 256 open files"), "\(low.standardError.suffix(500))")
        let soft = try await SpawnedProcess.run(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "ulimit -S -n 250 && exec \"$0\" \"$@\"", Self.executable.path] + arguments,
            timeout: .seconds(120), logDirectory: logs, name: "cork-load-soft", unprivileged: true)
        #expect(soft.exit.isSuccess, "\(soft.exit) \(soft.standardError.suffix(1000))")
    }

    /// Values that crashed or hung cork-load (a load tester's audit): each is refused before anything starts.
    @Test(arguments: [
        ["--rate", "inf"], ["--rate", "nan"], ["--duration", "100000000000"], ["--warmup", "9223372036854775807"],
        ["--window", "4294967296"], ["--boards", "-1"], ["--publishers", "-3"], ["--publishers", "100000"],
        ["--board", "b1", "--board", "b1"], ["--web-sessions", "1", "--boards", "2"], ["--corkd", "/nonexistent"],
        ["--server-pid", "1"], ["--server-pid", "2147483646"],
    ])
    func valuesOutOfRangeAreAUsageError(_ arguments: [String]) async throws {
        let run = try await runLoad(["--spawn"] + arguments)
        #expect(run.exit.reason == .exit && run.exit.status == 64, "\(arguments): \(run.exit) \(run.stderr.suffix(500))")
        let option = arguments[0] == "--publishers" && arguments[1] == "100000" ? "connections" : arguments.count > 2 ? arguments[2] : arguments[0]
        #expect(run.stderr.contains(option), "\(run.stderr.suffix(500))")
        #expect(!run.stderr.contains("Missing value"))
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("cork-load: ") && lines[0].hasSuffix("(see 'cork-load --help')"), "\(run.stderr)")
    }

    @Test func aBoardTheAccountCannotSeeFailsBeforeTheRun() async throws {
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        try await corkd.start()
        let run = try await runLoad([
            "--url", corkd.ownerURL, "--board", "main", "--board", "nosuch", "--duration", "30", "--warmup", "0", "--json",
        ])
        #expect(run.exit.reason == .exit && run.exit.status == 1, "\(run.exit)")
        // Only the board that cannot be read is named (both were), and a script reading --json gets the verdict.
        #expect(run.stderr.contains("cannot read board(s) nosuch with"), "\(run.stderr.suffix(1000))")
        #expect(run.report["ok"] as? Bool == false && (run.report["verdict"] as? String)?.contains("board(s) nosuch") == true, "\(run.report)")
        #expect(!run.stderr.contains("measure"), "the run started: \(run.stderr.suffix(1000))")
    }

    /// A rate the server cannot keep up with: the ops/s figure counts the acks that arrived in the measured window,
    /// as deliveries count the deltas (by slot it had shown the backlog's acks as warm-up: 5,161 ops/s beside 8,600
    /// delivered), and the slots never sent are reported, with the verdict saying the rate was not reached.
    @Test func anOverloadedRunCountsWhatArrivedAndWhatWasNeverSent() async throws {
        let run = try await runLoad([
            "--spawn", "--boards", "1", "--subscribers-per-board", "2", "--publishers", "1", "--rate", "50000",
            "--duration", "3", "--warmup", "1", "--json",
        ])
        #expect(run.exit.reason == .exit && run.exit.status == 0, "\(run.exit) \(run.stderr.suffix(800))")
        let acked = run.report["ops_acked"] as? Int ?? 0
        let deliveries = run.report["deliveries"] as? Int ?? 0
        // Each op reaches both subscribers; the window's edges allow a little either way.
        #expect(acked > 0 && abs(Double(deliveries) / 2 - Double(acked)) <= Double(acked) * 0.05 + 20, "acked \(acked), deliveries \(deliveries)")
        #expect(run.report["slots_unsent"] as? Int ?? 0 > 0, "\(run.report)")
        #expect((run.report["verdict"] as? String)?.contains("RATE NOT REACHED") == true, "\(run.report["verdict"] ?? "")")
    }

    /// The end-of-run check reads the boards as the first account; revoked during the run, the next account given
    /// reads them instead, so the subscribers that stayed are still checked (it had been NOT CHECKED: token_revoked).
    @Test func theCheckFallsBackToTheNextAccountWhenTheFirstIsRevoked() async throws {
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        try await corkd.start()
        let publisher = String(describing: try await corkd.invite("pub", role: "editor"))
        let subscriber = String(describing: try await corkd.invite("sub", role: "viewer"))
        let logs = FileManager.default.temporaryDirectory.appendingPathComponent("cork-load-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: logs) }
        let load = try SpawnedProcess(
            executable: Self.executable,
            arguments: [
                "--url", publisher, "--url", subscriber, "--board", "main", "--publishers", "1",
                "--subscribers-per-board", "1", "--rate", "10", "--duration", "4", "--warmup", "0", "--json",
            ],
            logDirectory: logs, name: "cork-load", unprivileged: true)
        defer { if load.isRunning { load.send(signal: SIGKILL) } }
        let deadline = ContinuousClock.now + .seconds(60)
        while !load.standardError.contains("s] measure"), load.isRunning, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        let revoked = try await corkd.admin(["revoke", "--user", "pub"])
        #expect(revoked.exit.isSuccess, "\(revoked.standardError)")
        let exit = try #require(await load.waitForExit(timeout: .seconds(60)), "cork-load did not stop")
        #expect(exit.reason == .exit && exit.status == 1, "\(exit)")
        let report = (try? JSONSerialization.jsonObject(with: Data(load.standardOutput.utf8))) as? [String: Any] ?? [:]
        let convergence = report["convergence"] as? [String: Any] ?? [:]
        #expect(convergence["error"] == nil, "\(convergence)")
        let board = (convergence["boards"] as? [[String: Any]])?.first ?? [:]
        #expect(board["converged"] as? Bool == true && board["subscribers_matching"] as? Int == 1, "\(board)")
        #expect(load.standardError.contains("read the server's boards with account #2"), "\(load.standardError.suffix(800))")
    }

    /// A client that cannot connect is named with why, in the table and in `--json` (which also carries the verdict
    /// line), and a board whose reference replica never connected is not checked, not called diverged.
    @Test func aClientThatCannotConnectIsNamedAndItsBoardIsNotCalledDiverged() async throws {
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        try await corkd.start()
        let invite = try await corkd.invite("watcher", role: "viewer")
        let viewer = String(describing: invite)
        let wrongPin = viewer.replacing(/fp=sha256:[0-9a-f]{8}/, with: "fp=sha256:00000000")
        try #require(wrongPin != viewer)
        let run = try await runLoad([
            "--url", corkd.ownerURL, "--url", wrongPin, "--board", "main", "--publishers", "1",
            "--subscribers-per-board", "1", "--rate", "5", "--duration", "1", "--warmup", "0", "--json",
        ])
        #expect(run.exit.reason == .exit && run.exit.status == 1, "\(run.exit) \(run.stderr.suffix(1000))")
        let failed = run.report["failed_clients"] as? [String] ?? []
        #expect(failed.count == 1 && failed.first?.hasPrefix("subscriber load-") == true, "\(failed)")
        #expect(failed.first?.contains("(URL #2) on main: ") == true, "\(failed)")
        #expect(failed.first?.contains("fingerprint") == true, "\(failed)")
        let verdict = run.report["verdict"] as? String ?? ""
        #expect(verdict.hasPrefix("FAILED: 1 of 2 client(s) did not connect"), "\(verdict)")
        let convergence = run.report["convergence"] as? [String: Any] ?? [:]
        let board = (convergence["boards"] as? [[String: Any]])?.first ?? [:]
        #expect(board["unchecked"] as? Bool == true, "\(board)")
    }

    /// The progress line counts lost connections among "rejects+errors", a subscriber's `bye` included (they were
    /// left out: a server that died or stopped mid-run showed 0 errors a second until the end), and the verdict says
    /// first that clients lost their connections.
    @Test(arguments: [SIGKILL, SIGTERM])
    func aServerThatDiesMidRunShowsInTheProgressLines(signal: Int32) async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable.path) else {
            throw TestFailure("cork-load is missing at \(Self.executable.path); run `swift build --build-tests` first")
        }
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        try await corkd.start()
        let logs = FileManager.default.temporaryDirectory.appendingPathComponent("cork-load-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: logs) }
        let load = try SpawnedProcess(
            executable: Self.executable,
            arguments: [
                "--url", corkd.ownerURL, "--board", "main", "--publishers", "2", "--subscribers-per-board", "1",
                "--rate", "10", "--duration", "8", "--warmup", "0",
            ],
            logDirectory: logs, name: "cork-load", unprivileged: true)
        defer { if load.isRunning { load.send(signal: SIGKILL) } }
        // 10 ops/s, under the account's rate limit, so that no reject counts. The server dies once the first measured
        // second has been printed; then two publishers and a subscriber lose their connections.
        let deadline = ContinuousClock.now + .seconds(60)
        while !load.standardError.contains("s] measure"), load.isRunning, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        let before = load.standardError.components(separatedBy: "\n").filter { $0.contains("] measure") }.count
        try #require(before > 0, "no progress line: \(load.standardError.suffix(1000))")
        corkd.server?.send(signal: signal)
        let exit = await load.waitForExit(timeout: .seconds(60))
        #expect(exit?.reason == .exit && exit?.status == 1, "\(String(describing: exit))")
        let lines = load.standardError.components(separatedBy: "\n").filter { $0.contains("] measure") }
        let errors = lines.dropFirst(before).compactMap { line in
            line.components(separatedBy: "rejects+errors").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        }
        #expect(errors.reduce(0, +) >= 3, "after the kill: \(lines.dropFirst(before))")
        // Nothing is left to measure: the run stops instead of printing zeros until the end of --duration.
        #expect(load.standardError.contains("every client's connection has ended; the run stops early"), "\(load.standardError.suffix(1000))")
        #expect(lines.count < 8, "\(lines)")
        let verdict = load.standardOutput.components(separatedBy: "\n").first { $0.hasPrefix("verdict") } ?? ""
        #expect(verdict.contains("FAILED: 3 of 3 client(s) lost their connection before the end"), "\(verdict)")
        // The rates are per second measured before the stop, not per second of --duration (8): at 10 ops/s the table
        // said about 1 ops/s.
        let acked = load.standardOutput.components(separatedBy: "\n").first { $0.contains("ops acked") } ?? ""
        let measured = try #require(acked.firstMatch(of: /in the measured (\d+) s/).flatMap { Int($0.output.1) }, "\(acked)")
        #expect(measured < 8, "\(acked)")
        let rate = try #require(acked.firstMatch(of: /\((\d+(?:\.\d+)?) ops\/s\)/).flatMap { Double($0.output.1) }, "\(acked)")
        #expect(rate > 4, "\(acked)")
    }

    /// A directory the unprivileged user the tests run cork-load as may write in, as its TMPDIR.
    func scratchTemporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cork-load-tmp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory.path)
        return directory
    }

    @Test func aSpawnThatFailsLeavesNothingBehind() async throws {
        let temporary = try scratchTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: temporary) }
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = temporary.path
        let run = try await SpawnedProcess.run(
            Self.executable, ["--spawn", "--corkd", "/bin/true", "--duration", "1"], timeout: .seconds(60),
            logDirectory: temporary.appendingPathComponent("logs"), name: "cork-load", environment: environment, unprivileged: true)
        #expect(run.exit.reason == .exit && run.exit.status == 1, "\(run.exit)")
        #expect(run.standardError.contains("spawn_failed: corkd exited before listening"), "\(run.standardError)")
        #expect(!run.standardError.contains("spawn_failed: spawn_failed"))
        let left = try FileManager.default.contentsOfDirectory(atPath: temporary.path).filter { $0.hasPrefix("cork-load-") }
        #expect(left.isEmpty, "left behind: \(left)")
    }

    @Test func ctrlCDuringTheSetUpStopsCorkdAndRemovesItsDirectory() async throws {
        let temporary = try scratchTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: temporary) }
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = temporary.path
        // corkd, except that `corkd invite` hangs: the signal comes while the set-up waits for it, whatever the
        // machine's speed.
        let corkd = temporary.appendingPathComponent("corkd")
        try "#!/bin/sh\nif [ \"$1\" = invite ]; then exec sleep 60; fi\nexec \(CorkdProcess.executable.path) \"$@\"\n"
            .write(to: corkd, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: corkd.path)
        let child = try SpawnedProcess(
            executable: Self.executable,
            arguments: ["--spawn", "--corkd", corkd.path, "--publishers", "1", "--duration", "30", "--warmup", "0"],
            logDirectory: temporary.appendingPathComponent("logs"), name: "cork-load", environment: environment, unprivileged: true)
        defer { child.killAndReap() }
        let deadline = ContinuousClock.now + .seconds(60)
        while !child.standardError.contains("listening on"), child.isRunning, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        let line = try #require(child.standardError.split(separator: "\n").first { $0.contains("listening on") }, "\(child.standardError)")
        let pid = try #require(line.split(separator: "pid ").last?.split(separator: ")").first.flatMap { Int32($0) })
        try await Task.sleep(for: .milliseconds(500))
        child.send(signal: SIGINT)
        let exit = try #require(await child.waitForExit(timeout: .seconds(30)), "cork-load did not stop")
        #expect(exit.reason == .exit && exit.status == 130, "\(exit) \(child.standardError.suffix(1000))")
        #expect(!child.standardError.contains("set up with corkd board create"), "\(child.standardError.suffix(1000))")
        #expect(kill(pid, 0) != 0, "corkd \(pid) still runs")
        let left = try FileManager.default.contentsOfDirectory(atPath: temporary.path).filter { $0.hasPrefix("cork-load-") }
        #expect(left.isEmpty, "left behind: \(left)")
    }

    /// SIGTERM in the first moments of a `--spawn` run (before and while corkd starts) ends it: exit 143, one JSON
    /// object, nothing left behind. It had been said ("interrupted; stopping corkd") and the run then went on to exit 0
    /// with a second verdict, leaving its directory; and a signal between turning the default action off and the
    /// dispatch source taking it was ignored altogether.
    @Test(arguments: [0, 15, 30, 50, 120, 250])
    func anEarlySigtermEndsASpawnedRun(afterMs delay: Int) async throws {
        let temporary = try scratchTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: temporary) }
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = temporary.path
        let child = try SpawnedProcess(
            executable: Self.executable,
            arguments: ["--spawn", "--boards", "2", "--subscribers-per-board", "10", "--duration", "3", "--warmup", "0", "--json"],
            logDirectory: temporary.appendingPathComponent("logs"), name: "cork-load", environment: environment, unprivileged: true)
        defer { child.killAndReap() }
        // Once its signal handlers are in place (before that, the default action ends it with 143 as well).
        try await Task.sleep(for: .milliseconds(delay))
        child.send(signal: SIGTERM)
        let exit = try #require(await child.waitForExit(timeout: .seconds(60)), "cork-load did not stop")
        #expect(exit.status == 143 || exit.reason != .exit, "\(exit) \(child.standardError.suffix(800))")
        let objects = child.standardOutput.split(separator: "\n").filter { $0.hasPrefix("{") }
        #expect(objects.count <= 1 && !child.standardOutput.contains("\"verdict\":\"ok"), "\(child.standardOutput)")
        // The corkd it may have started ends with it (--exit-with-parent), and its directory goes.
        let deadline = ContinuousClock.now + .seconds(10)
        var left: [String] = []
        repeat {
            left = try FileManager.default.contentsOfDirectory(atPath: temporary.path).filter { $0.hasPrefix("cork-load-") }
            if left.isEmpty { break }
            try await Task.sleep(for: .milliseconds(100))
        } while ContinuousClock.now < deadline
        #expect(left.isEmpty, "left behind: \(left)")
    }
}
