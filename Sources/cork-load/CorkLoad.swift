import ArgumentParser
import BuildInfo
import BoardCore
import BoardWire
import Foundation
import NIOPosix

/// `cork-load`: simulated Corkboard clients over real TLS: throughput, ack and fan-out latency, CPU, seq checks and
/// convergence.
@main
struct CorkLoad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cork-load",
        abstract: "Load-test a corkd server with simulated TLS clients speaking Protocol.md.",
        discussion: """
            Publishers send ops (--mix of card moves, edits, adds and chat, about 200 bytes each) to the boards in \
            turn, in a closed loop with --window ops in flight or paced to --rate ops/s in total; they do not \
            subscribe. Each board has --subscribers-per-board subscribers that only read. Every simulated client is \
            its own TLS connection, user and client_id.

            Measured: ack latency (op sent → its ack) and fan-out latency (op sent → its delta received by every \
            subscriber of its board), ops/s acked, deliveries/s, errors by code, bytes, and the CPU time of corkd and \
            of cork-load itself when corkd is local (--spawn, or --server-pid).

            At the end every board's state is read from the server; the board's first subscriber replays the deltas \
            it received through the reducer and must reach the server's seq and content hash, and every other \
            subscriber must hold the same delta stream. A run that fails to converge, sees a seq gap or repeat, or \
            loses a client exits 1.

            --spawn starts corkd (the binary beside cork-load, or --corkd) on a temporary data directory with one \
            user per connection and the per-user rate limit lifted. With --url, give one invite URL per connection \
            (--urls-file; `corkd invite` makes them) and start corkd with --rate/--burst high enough.

            Exit status: 0 ok; 1 when a client did not connect or stay, a seq broke, a replica diverged or the \
            convergence could not be checked (the verdict says why first); 64 for a usage error, before anything \
            starts; 130 on Ctrl-C and 143 on SIGTERM, after stopping a spawned corkd.
            """,
        version: BuildInfo.versionLine("cork-load"))

    /// Parses and runs; a usage error is one line on stderr, `cork-load: REASON (see 'cork-load --help')`, exit 64.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asynchronous = command as? AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            let line = BuildInfo.usageLine(message: message(for: error), full: fullMessage(for: error))
            try? FileHandle.standardError.write(contentsOf: Data("cork-load: \(line)\n".utf8))
            exit(withError: ExitCode.validationFailure)
        }
    }

    @Flag(help: "Start a corkd on a temporary data directory for this run (stopped and removed at the end).")
    var spawn = false

    @Option(help: "The corkd binary for --spawn (default: the one beside cork-load).")
    var corkd: String?

    @Flag(name: .customLong("keep-data"), help: "With --spawn, keep the data directory (and corkd.err) afterwards.")
    var keepData = false

    @Option(name: .customLong("url"), help: "An invite URL (cork://HOST:PORT/BOARD?token=…&fp=sha256:…); repeatable.")
    var urls: [String] = []

    @Option(name: .customLong("urls-file"), help: "A file with one invite URL per line (blank lines and # comments skipped); - reads standard input.")
    var urlsFile: String?

    @Option(name: .customLong("board"), help: "With --url: a board to load (repeatable; default the first URL's board).")
    var boardNames: [String] = []

    @Option(parsing: .unconditional, help: "Simulated clients in all: boards × subscribers-per-board + publishers.")
    var clients: Int?

    @Option(parsing: .unconditional, help: "Boards (with --spawn; with --url, the number of --board options).")
    var boards: Int?

    @Option(name: .customLong("subscribers-per-board"), parsing: .unconditional, help: "Subscribers of each board (default: from --clients, else 1).")
    var subscribersPerBoard: Int?

    @Option(parsing: .unconditional, help: "Connections that send ops.")
    var publishers: Int = 1

    @Option(parsing: .unconditional, help: "Measured seconds.")
    var duration: Int = 10

    @Option(parsing: .unconditional, help: "Seconds of load before measuring.")
    var warmup: Int = 2

    @Option(parsing: .unconditional, help: "Total ops/s to offer, split over the publishers on a fixed schedule (latency counts from each op's slot).")
    var rate: Double?

    @Flag(name: .customLong("closed-loop"), help: "Send as fast as acks come back, --window ops in flight per publisher (the default without --rate).")
    var closedLoop = false

    @Option(parsing: .unconditional, help: "Ops in flight per publisher in the closed loop.")
    var window: Int = 1

    @Option(help: "Relative weights of the ops publishers send: move, edit, add, chat.")
    var mix: String = OpMix.standard.description

    @Option(name: .customLong("cards-per-board"), parsing: .unconditional, help: "Cards each publisher keeps on each board; further adds purge its oldest.")
    var cardsPerBoard: Int = 100

    @Option(parsing: .unconditional, help: "Authenticated connections that only answer pings, held for the run (server RSS per connection).")
    var idle: Int = 0

    @Flag(inversion: .prefixedNo, help: "Whether idle connections subscribe to the first board.")
    var idleSubscribe = true

    @Option(name: .customLong("server-pid"), help: "corkd's process id: report its RSS and CPU time from /proc (set by --spawn).")
    var serverPID: Int32?

    @Option(name: .customLong("replay-mb"), parsing: .unconditional, help: "Most MiB of deltas a board's reference replica keeps for the convergence replay.")
    var replayMB: Int = 2_048

    @Flag(help: "Print one JSON object instead of the table.")
    var json = false

    @Option(
        name: .customLong("web-sessions"), parsing: .unconditional,
        help: "With --spawn: instead of TLS subscribers, this many web page sessions (/live) on one board of --cards-per-board cards, while one writer moves cards at --rate (default 5/s) for --duration s; reports move → diff latency at the sessions and corkd's memory per session.")
    var webSessions: Int?

    /// The most of each figure cork-load takes: beyond them a run cannot work, and an unchecked value crashed or hung
    /// it. With 8,000 ops in flight per publisher corkd cut both publishers of a run as slow consumers (their acks
    /// outgrew the 1 MiB outbox while they were still writing); 5,000 still ran.
    static let durationMax = 86_400, warmupMax = 3_600, windowMax = 4_096, rateMax = 10_000_000.0
    /// corkd's `connections_max`: a spawned server takes no more connections (cork-load adds one to check the end).
    static let spawnConnectionsMax = WireLimits().connectionsMax - 1

    mutating func validate() throws {
        if let serverPID {
            // The figures are that process's: a mistyped pid gave 0.00 s of CPU for a corkd that worked hard.
            guard let comm = try? String(contentsOfFile: "/proc/\(serverPID)/comm", encoding: .utf8) else {
                throw ValidationError("--server-pid \(serverPID): no such process")
            }
            let name = comm.trimmingCharacters(in: .whitespacesAndNewlines)
            guard name.hasPrefix("corkd") else {
                throw ValidationError("--server-pid \(serverPID) is \(name), not corkd")
            }
        }
        guard publishers >= 0, idle >= 0 else { throw ValidationError("--publishers and --idle must be at least 0") }
        guard (1...Self.windowMax).contains(window) else { throw ValidationError("--window must be 1 to \(Self.windowMax)") }
        guard (1...Self.durationMax).contains(duration), (0...Self.warmupMax).contains(warmup) else {
            throw ValidationError("--duration must be 1 to \(Self.durationMax) s, --warmup 0 to \(Self.warmupMax) s")
        }
        guard cardsPerBoard >= 1, replayMB >= 1 else { throw ValidationError("--cards-per-board and --replay-mb must be at least 1") }
        guard cardsPerBoard <= Limits.cardsMax else { throw ValidationError("--cards-per-board must be at most \(Limits.cardsMax)") }
        guard replayMB <= 1 << 20 else { throw ValidationError("--replay-mb must be at most \(1 << 20)") }
        if let rate, !(rate > 0 && rate <= Self.rateMax) {
            throw ValidationError("--rate must be a number above 0 and at most \(Int(Self.rateMax)) ops/s")
        }
        if rate != nil && closedLoop { throw ValidationError("--rate and --closed-loop exclude each other") }
        if let boards, boards < 1 { throw ValidationError("--boards must be at least 1") }
        if let twice = Dictionary(grouping: boardNames, by: { $0 }).first(where: { $0.value.count > 1 })?.key {
            // Its subscribers would all be on the one board, twice as many as the header says.
            throw ValidationError("--board \(twice) is given twice; each --board names another board")
        }
        if let subscribersPerBoard, subscribersPerBoard < 0 { throw ValidationError("--subscribers-per-board must be at least 0") }
        if let clients, clients < 1 { throw ValidationError("--clients must be at least 1") }
        do { _ = try OpMix(parsing: mix) } catch { throw ValidationError(error.message) }
    }

    /// Whether this process may open `connections` TLS connections (one descriptor each) and a spawned corkd takes
    /// them; a clear usage error before anything starts otherwise.
    /// Raises this process's soft limit of open files to its hard limit: each simulated client is a connection, and
    /// the usual soft limit of 1,024 is far below what a hard limit allows.
    static func raiseOpenFilesLimit() {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = min(limit.rlim_max, 1 << 20)
        _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// The fewest open files with which starting corkd works: below it Foundation's process start fails with "Bad
    /// file descriptor" (measured here: 251 fails, 252 works).
    static let spawnOpenFilesMin = 256

    func checkRoom(for connections: Int) throws {
        if spawn, connections > Self.spawnConnectionsMax {
            throw ValidationError(
                "\(connections) connections: a spawned corkd takes at most \(Self.spawnConnectionsMax) (its connections_max of \(Self.spawnConnectionsMax + 1), less the one cork-load keeps to check the end)")
        }
        var limit = rlimit()
        if getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, UInt64(connections) + 64 > UInt64(limit.rlim_cur) {
            throw ValidationError(
                "\(connections) connections need as many open files; this process may open \(limit.rlim_cur) (raise `ulimit -n`)")
        }
        if spawn, limit.rlim_cur < Self.spawnOpenFilesMin {
            throw ValidationError(
                "--spawn needs at least \(Self.spawnOpenFilesMin) open files to start corkd; this process may open \(limit.rlim_cur) (raise `ulimit -n`)")
        }
    }

    /// The layout from --clients, --boards, --subscribers-per-board and --publishers.
    func layout(boards count: Int) throws -> LoadPlan.Layout {
        let perBoard: Int
        if let subscribersPerBoard {
            if let clients, clients != count * subscribersPerBoard + publishers {
                throw ValidationError("--clients \(clients) ≠ \(count) boards × \(subscribersPerBoard) subscribers + \(publishers) publishers")
            }
            perBoard = subscribersPerBoard
        } else if let clients {
            guard clients >= publishers, (clients - publishers) % count == 0 else {
                throw ValidationError("--clients minus --publishers must divide evenly over \(count) board(s)")
            }
            perBoard = (clients - publishers) / count
        } else {
            perBoard = 1
        }
        let layout = LoadPlan.Layout(boards: count, subscribersPerBoard: perBoard, publishers: publishers, idle: idle)
        guard layout.connections > 0 else { throw ValidationError("nothing to connect: no publishers, subscribers or idle connections") }
        try checkRoom(for: layout.connections)
        return layout
    }

    func run() async throws {
        // Here, not in validate(): ArgumentParser validates before it reports an unknown option, and `cork-load
        // --bogus` said only that neither --spawn nor --url was given.
        if spawn != (urls.isEmpty && urlsFile == nil) { throw ValidationError("give either --spawn or --url/--urls-file") }
        Self.raiseOpenFilesLimit()
        let progress: @Sendable (String) -> Void = { line in try? FileHandle.standardError.write(contentsOf: Data((line + "\n").utf8)) }
        let mix = try OpMix(parsing: self.mix)
        let runID = String((0..<6).map { _ in Array("abcdefghijklmnopqrstuvwxyz0123456789").randomElement() ?? "x" })
        if let webSessions {
            try await runWebSessions(webSessions, runID: runID, progress: progress)
            return
        }
        var spawned: SpawnedServer?
        let plan: LoadPlan
        if spawn {
            guard let path = corkd ?? SpawnedServer.siblingCorkd() else {
                throw ValidationError("--spawn needs corkd beside cork-load (swift build --product corkd) or --corkd PATH")
            }
            guard FileManager.default.isExecutableFile(atPath: path) else { throw ValidationError("--corkd \(path) is not an executable file") }
            let layout = try layout(boards: boards ?? 1)
            Self.cleanUpOnSignals(json: json)
            let server: SpawnedServer
            do {
                server = try await SpawnedServer.start(corkdPath: path, layout: layout, runID: runID, keep: keepData, progress: progress)
            } catch {
                // Interrupted: the signal's clean-up ends the process (130 or 143); this failure is its doing.
                if SpawnCleanup.shared.interrupted { try? await Task.sleep(for: .seconds(60)) }
                throw error
            }
            spawned = server
            plan = makePlan(layout: layout, targets: server.targets, checker: server.owner, boards: server.boards, pid: server.pid, mix: mix, runID: runID)
        } else {
            // Each URL with where it came from, for a refusal that says which one is wrong.
            var texts = urls.map { (text: $0, place: "--url") }
            if let urlsFile {
                // `-` is standard input (`corkd invite --users-file users.txt | cork-load --urls-file - …`); a path may be
                // a pipe too (`<(…)`), read to its end.
                let data = urlsFile == "-" ? FileHandle.standardInput.readDataToEndOfFile()
                    : FileHandle(forReadingAtPath: urlsFile).map { $0.readDataToEndOfFile() }
                guard let data, let contents = String(data: data, encoding: .utf8)
                else { throw ValidationError("cannot read --urls-file \(urlsFile): no such readable UTF-8 file") }
                for (index, line) in contents.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let text = line.trimmingCharacters(in: .whitespaces)
                    if !text.isEmpty && !text.hasPrefix("#") { texts.append((text, "\(urlsFile) line \(index + 1)")) }
                }
            }
            var targets: [Target] = []
            for (text, place) in texts {
                do { targets.append(try Target(url: text, board: nil)) } catch { throw ValidationError("\(place): \(error)") }
            }
            guard let first = targets.first else { throw ValidationError("no invite URLs") }
            let names = boardNames.isEmpty ? [first.board] : boardNames
            if let boards, boards != names.count { throw ValidationError("with --url, --boards must equal the number of --board options") }
            let layout = try layout(boards: names.count)
            Self.cleanUpOnSignals(spawned: false, json: json)
            plan = makePlan(layout: layout, targets: targets, checker: first, boards: names, pid: serverPID, mix: mix, runID: runID)
            // Each board must be there for the first URL's account before any load starts: a misspelt --board used to
            // run the whole duration on not_found rejects before the run failed.
            let states: [Convergence.ServerBoard]
            do {
                states = try await Convergence.serverState(
                    first, boards: names, clientID: "check-\(runID)", group: MultiThreadedEventLoopGroup.singleton)
            } catch {
                failBeforeTheRun(
                    "cannot read board(s) \(names.joined(separator: ", ")) with the first URL's account: \(LoadError.describe(error))")
            }
            let refused = zip(names, states).filter { $0.1.refused != nil }
            if !refused.isEmpty {
                let boards = refused.map(\.0).joined(separator: ", ")
                let why = refused.map { "\($0.0): \($0.1.refused ?? "")" }.joined(separator: "; ")
                failBeforeTheRun("cannot read board(s) \(boards) with the first URL's account: \(why)")
            }
        }
        let report = await LoadRun(plan: plan, progress: progress).run()
        if let spawned { await spawned.stop() }
        print(json ? report.json() : report.summary.table)
        if !report.succeeded { throw ExitCode(1) }
    }

    /// The run cannot start: says why on stderr (and, with `--json`, as the one JSON object on stdout a script reads),
    /// and exits 1.
    private func failBeforeTheRun(_ why: String) -> Never {
        try? FileHandle.standardError.write(contentsOf: Data("check: \(why)\n".utf8))
        if json { print(Self.failureJSON("FAILED: " + why)) }
        Foundation.exit(1)
    }

    /// `{"ok":false,"verdict":…}`: what `--json` prints when there are no figures.
    static func failureJSON(_ verdict: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(["verdict": verdict])) ?? Data()
        return #"{"ok":false,"# + String(decoding: data.dropFirst(), as: UTF8.self)
    }

    /// Ctrl-C or SIGTERM at any moment of a `--spawn` run, its set-up included: stop corkd (and an admin command
    /// still running) and remove the data directory, then exit with 128 + the signal's number (130, 143).
    ///
    /// The handler is installed in one step (`signal`), so no signal falls between the default action and this one:
    /// it writes the signal's number to a pipe, and a thread of its own reads it and cleans up. (Turning the default
    /// action off and then arming a dispatch signal source had left a window in which a signal was ignored.)
    private static func cleanUpOnSignals(spawned: Bool = true, json: Bool) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }  // the default action still ends the process
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        // A signal handler must not block: a full pipe (many signals) drops the byte, the first one is enough.
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        let reading = ends[0]
        let reader = Thread {
            var byte: UInt8 = 0
            while read(reading, &byte, 1) != 1 { if errno != EINTR { return } }
            handleSignal(Int32(byte), spawned: spawned, json: json)
        }
        reader.name = "cork-load signals"
        reader.start()
        signalPipe = ends[1]
        for number in [SIGINT, SIGTERM] { signal(number, forwardSignal) }
    }

    /// The first signal: says so, cleans up, and exits with 128 + its number.
    private static func handleSignal(_ number: Int32, spawned: Bool, json: Bool) {
        let said = spawned ? "stopping corkd" : "the run did not finish, so there are no figures"
        try? FileHandle.standardError.write(contentsOf: Data("cork-load: interrupted; \(said)\n".utf8))
        if json { print(failureJSON("FAILED: interrupted by signal \(number); the run did not finish")) }
        Task {
            await SpawnCleanup.shared.interrupt()
            // `_exit`, not `exit`: exit's handlers, run from this thread while the run's threads go on, could hang,
            // and the run then finished as if never interrupted (exit 0, a second verdict).
            fflush(nil)  // every output stream: the JSON above is in stdout's buffer
            _exit(128 + number)
        }
    }

    private func makePlan(
        layout: LoadPlan.Layout, targets: [Target], checker: Target, boards: [String], pid: Int32?, mix: OpMix, runID: String
    ) -> LoadPlan {
        LoadPlan(
            layout: layout, targets: targets, checker: checker, boards: boards, window: window, rate: rate, mix: mix,
            cardsPerBoard: cardsPerBoard, duration: duration, warmup: warmup, idleSubscribes: idleSubscribe,
            serverPID: pid, runID: runID, replayBytesMax: replayMB * 1_048_576)
    }
}

extension CorkLoad {
    /// `--web-sessions N` (see ``WebSessionsRun``).
    func runWebSessions(_ count: Int, runID: String, progress: @escaping @Sendable (String) -> Void) async throws {
        guard spawn, let path = corkd ?? SpawnedServer.siblingCorkd() else {
            throw ValidationError("--web-sessions needs --spawn (and corkd beside cork-load, or --corkd PATH)")
        }
        guard count >= 1 else { throw ValidationError("--web-sessions must be at least 1") }
        if let boards, boards != 1 { throw ValidationError("--web-sessions runs on one board: --boards does not apply") }
        if subscribersPerBoard != nil || clients != nil || idle > 0 {
            throw ValidationError("--web-sessions replaces the TLS subscribers: --subscribers-per-board, --clients and --idle do not apply")
        }
        let layout = LoadPlan.Layout(boards: 1, subscribersPerBoard: count, publishers: 1, idle: 0)
        try checkRoom(for: 2 * count + 8)
        Self.cleanUpOnSignals(json: json)
        let server = try await SpawnedServer.start(corkdPath: path, layout: layout, runID: runID, keep: keepData, progress: progress)
        let report: WebSessionsRun.Report
        do {
            report = try await WebSessionsRun(
                server: server, sessions: count, cards: cardsPerBoard, rate: rate ?? 5, duration: duration, progress: progress
            ).run()
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(
                String(
                    format: "%d web sessions on %d cards: %d moves, %d deliveries (%d missing); move → diff p50 %.1f ms, p99 %.1f ms, max %.1f ms; corkd RSS %d → %d KiB, %.0f KiB per session; the page's first load %d bytes",
                    report.sessions, report.cards, report.moves, report.deliveries, report.missing, report.p50Ms, report.p99Ms,
                    report.maxMs, report.rssBeforeKiB, report.rssAfterKiB, report.kibPerSession, report.pageBytes))
        }
        if report.missing > 0 { throw ExitCode(1) }
    }
}

/// The pipe's write end the signal handler writes to; set before the handler is installed, never changed after.
nonisolated(unsafe) private var signalPipe: Int32 = -1

/// The signal handler: only async-signal-safe calls (one `write`).
private func forwardSignal(_ number: Int32) {
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(signalPipe, &byte, 1)
}
