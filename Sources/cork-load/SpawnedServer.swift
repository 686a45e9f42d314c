import BoardCore
import BoardTransport
import BoardWire
import Foundation
import Synchronization

/// `--spawn`: a real `corkd` on a temporary data directory, set up for the run through the operator's own commands,
/// and removed afterwards.
///
/// cork-load starts `corkd serve` on port 0 (the per-user rate limit lifted with `--rate`/`--burst`, `--members-max`
/// raised when a board needs more members than the default) and sets the run up exactly as an operator would, with
/// no write of its own to the store: `corkd board create load-0 …` makes the boards (owned by the first start's
/// owner, whose URL is in `owner.url`), and one `corkd invite --users-file` makes one user and token per simulated
/// connection: publishers are owners of every load board (their `add` slots purge), subscribers viewers of their
/// board, idle connections viewers of the first. Both commands return once the running server has applied them.
///
/// corkd runs as its own process, not inside cork-load, so that the report can give the server's CPU apart from the
/// load generator's (`/proc/PID/stat`), which is the point of the figure.
final class SpawnedServer: Sendable {
    let directory: URL
    let process: Process
    let host = "127.0.0.1"
    let port: Int
    /// One account per connection, in `LoadPlan.Layout` order.
    let targets: [Target]
    /// The owner's account, for the convergence check.
    let owner: Target
    let boards: [String]

    var pid: Int32 { process.processIdentifier }

    private init(directory: URL, process: Process, port: Int, targets: [Target], owner: Target, boards: [String]) {
        self.directory = directory
        self.process = process
        self.port = port
        self.targets = targets
        self.owner = owner
        self.boards = boards
    }

    /// The `corkd` next to this executable (both are products of the same package), or nil.
    static func siblingCorkd() -> String? {
        // The running binary itself (argv[0] is only a name when cork-load was found on PATH).
        let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let me = URL(fileURLWithPath: path).resolvingSymlinksInPath()
        let candidate = me.deletingLastPathComponent().appendingPathComponent("corkd").path
        return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
    }

    /// The user name, role and boards of connection `index`, as a line of `corkd invite --users-file`.
    static func invite(_ index: Int, layout: LoadPlan.Layout, boards: [String]) -> String {
        switch layout.role(of: index) {
        case .publisher(let p): "pub\(p) owner \(boards.joined(separator: ","))"
        case .subscriber(let board, let s): "sub\(board)-\(s) viewer \(boards[board])"
        case .idle(let i): "idle\(i) viewer \(boards[0])"
        }
    }

    /// The most members any board of `layout` gets: the owner, every publisher, its subscribers (and, for the first,
    /// the idle connections).
    static func largestBoard(_ layout: LoadPlan.Layout) -> Int {
        1 + layout.publishers + layout.subscribersPerBoard + layout.idle
    }

    /// Starts corkd from `corkdPath` on a new data directory and sets it up for `layout`. On a failure nothing is left
    /// behind: corkd is stopped and the directory removed (unless `keep`).
    static func start(
        corkdPath: String, layout: LoadPlan.Layout, runID: String, keep: Bool, progress: @Sendable (String) -> Void
    ) async throws -> SpawnedServer {
        let members = largestBoard(layout)
        guard members <= Limits.membersMax else {
            throw LoadError("spawn_failed", "a board would have \(members) members; members_max is at most \(Limits.membersMax)")
        }
        guard FileManager.default.isExecutableFile(atPath: corkdPath) else {
            throw LoadError("spawn_failed", "no executable corkd at \(corkdPath)")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cork-load-\(runID)")
        try SpawnCleanup.shared.makeDirectory(directory, keep: keep)
        let errors = directory.appendingPathComponent("corkd.err")
        let process = Process()
        do {
            _ = FileManager.default.createFile(atPath: errors.path, contents: nil, attributes: [.posixPermissions: 0o600])
            process.executableURL = URL(fileURLWithPath: corkdPath)
            process.arguments = [
                // No configuration file: an installed package's /etc/corkd/corkd.toml would give it another store.
                "serve", "--config", "/dev/null", "--data-dir", directory.path, "--port", "0",
                "--rate", "10000000", "--burst", "10000000",
                "--members-max", "\(max(members, Limits.membersDefault))", "--log-level", "warning", "--exit-with-parent",
                // No mail: nobody reads a load test's inbox, and a missing sendmail's warning is noise in its log.
                "--no-mail",
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = try FileHandle(forWritingTo: errors)
            try process.run()
            SpawnCleanup.shared.started(server: process)
            return try await setUp(process, corkdPath: corkdPath, directory: directory, layout: layout, progress: progress)
        } catch {
            if process.isRunning { process.terminate() }
            if process.processIdentifier > 0 { _ = await reap(process, within: .seconds(10)) }
            let text = ((try? String(contentsOf: errors, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            await SpawnCleanup.shared.cleanUp()
            let reason = (error as? LoadError)?.message ?? "\(error)"
            throw LoadError("spawn_failed", "\(reason)\(text.isEmpty ? "" : "; corkd said: \(text.suffix(400))")")
        }
    }

    /// Waits for the started corkd to listen, then makes the boards and the users with corkd's admin commands.
    private static func setUp(
        _ process: Process, corkdPath: String, directory: URL, layout: LoadPlan.Layout, progress: @Sendable (String) -> Void
    ) async throws -> SpawnedServer {
        var listen: ListenRecord?
        var ownerText: String?
        var listeningSince: ContinuousClock.Instant?
        for _ in 0..<300 {
            listen = ListenRecord.read(in: directory)
            ownerText = try? String(contentsOf: directory.appendingPathComponent(InviteURL.ownerFileName), encoding: .utf8)
            if listen != nil && ownerText != nil { break }
            guard process.isRunning else { throw LoadError("spawn_failed", "corkd exited before listening") }
            // The owner's URL is written by a store's first start, before corkd listens. A corkd listening without
            // one was given a store that had its first start already: a PostgreSQL database named by CORKD_STORE.
            if listen != nil {
                let since = listeningSince ?? .now
                listeningSince = since
                if ContinuousClock.now - since > .seconds(3) {
                    throw LoadError(
                        "spawn_failed",
                        "corkd started on a store that is in use (no first start, so no owner for the run): --spawn sets "
                            + "up its own boards and users and needs an empty store. CORKD_STORE names a PostgreSQL "
                            + "database: give it an empty one for the run, or unset CORKD_STORE for SQLite in a "
                            + "temporary directory; to load a running server, use --urls-file")
                }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        guard let listen, let ownerText, let ownerURL = InviteURL(ownerText.trimmingCharacters(in: .whitespacesAndNewlines)),
            let fp = ownerURL.fingerprint
        else { throw LoadError("spawn_failed", "corkd did not start listening within 15 s") }
        let port = listen.port
        progress("spawn: corkd (pid \(process.processIdentifier)) listening on 127.0.0.1:\(port), data in \(directory.path)")
        let tls = try ClientTLS(trust: .pinned(try Fingerprint.parse(fp)))

        let started = Date()
        let boardNames = (0..<layout.boards).map { "load-\($0)" }
        try await admin(corkdPath, ["board", "create"] + boardNames, directory: directory, name: "boards")
        let lines = (0..<layout.connections).map { invite($0, layout: layout, boards: boardNames) }
        let usersFile = directory.appendingPathComponent("users.txt")
        _ = FileManager.default.createFile(
            atPath: usersFile.path, contents: Data((lines.joined(separator: "\n") + "\n").utf8),
            attributes: [.posixPermissions: 0o600])
        let printed = try await admin(corkdPath, ["invite", "--users-file", usersFile.path, "--json"], directory: directory, name: "invite")
        let urls = printed.split(separator: "\n").compactMap { line -> InviteURL? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let text = object["url"] as? String
            else { return nil }
            return InviteURL(text)
        }
        guard urls.count == layout.connections else {
            throw LoadError("spawn_failed", "corkd invite printed \(urls.count) URLs for \(layout.connections) users")
        }
        progress(String(format: "spawn: %d boards, %d users set up with corkd board create and corkd invite --users-file in %.1f s", layout.boards, urls.count, Date().timeIntervalSince(started)))

        let host = "127.0.0.1"
        let targets = urls.enumerated().map { index, url in
            let board: String
            switch layout.role(of: index) {
            case .publisher, .idle: board = boardNames[0]
            case .subscriber(let b, _): board = boardNames[b]
            }
            return Target(host: host, port: port, board: board, token: url.token, tls: tls)
        }
        return SpawnedServer(
            directory: directory, process: process, port: port, targets: targets,
            owner: Target(host: host, port: port, board: boardNames[0], token: ownerURL.token, tls: tls), boards: boardNames)
    }

    /// Runs `corkd ARGUMENTS --data-dir DIRECTORY` to completion (at most 120 s) and returns its stdout; a non-zero
    /// exit throws with its stderr.
    @discardableResult
    private static func admin(_ corkdPath: String, _ arguments: [String], directory: URL, name: String) async throws -> String {
        let out = directory.appendingPathComponent("admin-\(name).out")
        let err = directory.appendingPathComponent("admin-\(name).err")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil, attributes: [.posixPermissions: 0o600])
        _ = FileManager.default.createFile(atPath: err.path, contents: nil, attributes: [.posixPermissions: 0o600])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: corkdPath)
        process.arguments = arguments + ["--config", "/dev/null", "--data-dir", directory.path, "--log-level", "warning", "--wait", "60"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        SpawnCleanup.shared.started(command: process)
        defer { SpawnCleanup.shared.ended(command: process) }
        guard let status = await reap(process, within: .seconds(120)) else {
            throw LoadError("spawn_failed", "corkd \(arguments.prefix(2).joined(separator: " ")) did not finish within 120 s")
        }
        let output = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
        guard status == 0 else {
            let text = (try? String(contentsOf: err, encoding: .utf8)) ?? ""
            throw LoadError(
                "spawn_failed", "corkd \(arguments.prefix(2).joined(separator: " ")) exited \(status): \(text.suffix(400))")
        }
        return output
    }

    /// Stops corkd (SIGTERM, then SIGKILL after 10 s) and removes the data directory unless the run keeps it
    /// (`start`'s `keep`): the one clean-up, unless a signal's has begun.
    func stop() async {
        await SpawnCleanup.shared.cleanUp()
    }

    /// Waits until `process` has ended and returns its exit status (128 + the signal when a signal ended it); after
    /// `timeout` it is SIGKILLed and waited for 5 s more, and nil is returned.
    ///
    /// The end is learnt from `waitpid(WNOHANG)` as well as from Foundation, never from `waitUntilExit()`: Foundation
    /// notices a child's end through a descriptor the child inherits and a blocking `waitpid` on one thread that every
    /// `Process` shares, and its wait has no bound.
    static func reap(_ process: Process, within timeout: Duration) async -> Int32? {
        let pid = process.processIdentifier
        let deadline = ContinuousClock.now + timeout
        var killed = false
        var status: Int32 = 0
        while process.isRunning {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid {
                let signal = status & 0x7f
                return killed ? nil : signal == 0 ? (status >> 8) & 0xff : 128 + signal
            }
            // Reaped elsewhere: by Foundation's own waiter (then `isRunning` turns false in a moment and its status
            // is the answer) or by another of these waits (a signal's clean-up and the set-up both wait for the same
            // child; then `isRunning` stays true and the status is the other waiter's). Either way it has ended, and
            // its pid must not be signalled again: it may be another process's by now.
            if reaped == -1, errno == ECHILD {
                for _ in 0..<50 where process.isRunning { try? await Task.sleep(for: .milliseconds(20)) }
                if process.isRunning { return nil }
                break
            }
            if !killed, ContinuousClock.now >= deadline {
                killed = true
                kill(pid, SIGKILL)
            } else if killed, ContinuousClock.now >= deadline + .seconds(5) {
                return nil
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        if killed { return nil }
        return process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
    }
}

/// What a `--spawn` run has started so far — the data directory, corkd, an admin command running — so that Ctrl-C or
/// SIGTERM at any moment, the set-up included, stops them and removes the directory before cork-load exits.
///
/// One clean-up runs, whoever asks first: the run's own end or failure, or a signal's handler (which then exits
/// with 130 or 143). Two at once raced over the same directory and could each give up half-way, leaving it behind.
final class SpawnCleanup: Sendable {
    static let shared = SpawnCleanup()

    private struct State {
        var directory: URL?
        var keep = false
        /// `corkd serve`, stopped with SIGTERM (it shuts down cleanly on it).
        var server: Process?
        /// Admin commands running (`corkd board create`, `corkd invite`), stopped with SIGKILL: they have nothing to
        /// clean up, and the run's directory they write in is removed next.
        var commands: [Process] = []
    }

    private let state = Mutex(State())
    private let claimed = Atomic(false)
    private let finished = Atomic(false)
    private let interruptedFlag = Atomic(false)

    /// Whether a signal's clean-up has begun: the run's own failure, which the clean-up causes, is not reported then.
    var interrupted: Bool { interruptedFlag.load(ordering: .acquiring) }

    /// Makes the run's data directory and registers it, under the lock the clean-up takes its list with: either the
    /// clean-up sees the directory (and removes it), or the directory is never made (a signal's clean-up has begun,
    /// and the process exits right after it). Made and then registered, a signal in between left it behind.
    func makeDirectory(_ directory: URL, keep: Bool) throws {
        try state.withLock { state in
            if claimed.load(ordering: .acquiring) { throw LoadError("interrupted", "the run was interrupted") }
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            state.directory = directory
            state.keep = keep
        }
    }

    // What starts after a signal's clean-up has begun is stopped at once: the process exits right after.
    func started(server process: Process) {
        state.withLock { $0.server = process }
        if claimed.load(ordering: .acquiring) { process.terminate() }
    }
    func started(command process: Process) {
        state.withLock { $0.commands.append(process) }
        if claimed.load(ordering: .acquiring) { kill(process.processIdentifier, SIGKILL) }
    }
    func ended(command process: Process) { state.withLock { $0.commands.removeAll { $0 === process } } }

    /// A signal arrived: cleans up (or waits for the clean-up already under way) and returns once it is done.
    func interrupt() async {
        interruptedFlag.store(true, ordering: .releasing)
        await cleanUp()
        while !finished.load(ordering: .acquiring) { try? await Task.sleep(for: .milliseconds(10)) }
    }

    /// Stops whatever is running (corkd with SIGTERM, then SIGKILL after 10 s) and removes the directory unless kept;
    /// does nothing when a clean-up has already begun.
    func cleanUp() async {
        // Claimed under the lock `makeDirectory` holds, so that a directory is either in the list taken here or never
        // made.
        let state: State? = self.state.withLock { state in
            claimed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged ? state : nil
        }
        guard let state else { return }
        defer { finished.store(true, ordering: .releasing) }
        for command in state.commands where command.isRunning { kill(command.processIdentifier, SIGKILL) }
        if let server = state.server, server.isRunning { server.terminate() }
        for process in state.commands + (state.server.map { [$0] } ?? []) {
            _ = await SpawnedServer.reap(process, within: .seconds(10))
        }
        if let directory = state.directory {
            if state.keep {
                // Said at the end too: the path was only in the first lines of the run.
                try? FileHandle.standardError.write(contentsOf: Data("spawn: corkd's data is kept in \(directory.path)\n".utf8))
            } else {
                try? FileManager.default.removeItem(at: directory)
            }
        }
    }
}
