import BoardCore
import BoardServer
import BoardStore
import BoardTransport
import Foundation
import Logging

/// `--spawn`: a real `corkd` on a temporary data directory, prepared for the run and removed afterwards.
///
/// Before corkd starts, cork-load opens the new store itself and writes what the run needs: the boards `load-0`…,
/// one user and token per simulated connection (publishers are owners of every load board, so their `add` slots can
/// purge; subscribers are viewers of their board, idle connections viewers of the first), and the certificate, whose
/// fingerprint the clients pin. Then it starts `corkd serve` on port 0 with the per-user rate limit lifted
/// (`--rate`/`--burst`), reads the port from `listen.json`, and stops the server with SIGTERM at the end.
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
        let me = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let candidate = me.deletingLastPathComponent().appendingPathComponent("corkd").path
        return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
    }

    /// Prepares the data directory for `layout` and starts corkd from `corkdPath`.
    static func start(
        corkdPath: String, layout: LoadPlan.Layout, runID: String, progress: @Sendable (String) -> Void
    ) async throws -> SpawnedServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cork-load-\(runID)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var logger = Logger(label: "cork-load")
        logger.logLevel = .error
        let certificate = try SelfSignedCertificate.loadOrCreate(in: directory, hosts: ["127.0.0.1", "localhost"])
        let tls = try ClientTLS(trust: .pinned(certificate.fingerprint))
        let boardNames = (0..<layout.boards).map { "load-\($0)" }
        let started = Date()
        let store = try await SQLiteStore.open(directory: directory, logger: logger)
        let now = Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000))
        var tokens: [(user: String, token: String)] = []
        func account(_ name: String) async throws -> String {
            _ = try await store.ensureUser(UserID(name), displayName: "")
            return try await store.issueToken(for: UserID(name), expiresAt: nil, now: now)
        }
        let ownerToken = try await account("owner")
        var members = [[Member]](repeating: [], count: layout.boards)
        for index in 0..<layout.connections {
            let role = layout.role(of: index)
            let name: String
            switch role {
            case .publisher(let p):
                name = "pub\(p)"
                for board in 0..<layout.boards { members[board].append(Member(id: UserID(name), role: .owner)) }
            case .subscriber(let board, let s):
                name = "sub\(board)-\(s)"
                members[board].append(Member(id: UserID(name), role: .viewer))
            case .idle(let i):
                name = "idle\(i)"
                members[0].append(Member(id: UserID(name), role: .viewer))
            }
            tokens.append((name, try await account(name)))
        }
        for (index, id) in boardNames.enumerated() {
            var board = Board(id: BoardID(id), name: "Load \(index)", owner: "owner")
            for member in members[index] { board.members[member.id] = member }
            _ = try await store.createBoard(board)
        }
        try await store.close()
        progress(String(format: "spawn: %d boards, %d users prepared in %.1f s", layout.boards, tokens.count, Date().timeIntervalSince(started)))

        let process = Process()
        process.executableURL = URL(fileURLWithPath: corkdPath)
        process.arguments = [
            "serve", "--data-dir", directory.path, "--port", "0", "--rate", "10000000", "--burst", "10000000",
            "--log-level", "warning", "--exit-with-parent",
        ]
        process.standardOutput = FileHandle.nullDevice
        let errors = directory.appendingPathComponent("corkd.err")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        var port: Int?
        for _ in 0..<300 {
            if let address = ServerSetup.readListenAddress(in: directory) { port = address.port; break }
            if !process.isRunning { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        guard let port else {
            if process.isRunning { process.terminate() }
            let text = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw LoadError("spawn_failed", "corkd did not start listening within 15 s: \(text.suffix(400))")
        }
        progress("spawn: corkd (pid \(process.processIdentifier)) listening on 127.0.0.1:\(port), data in \(directory.path)")
        let host = "127.0.0.1"
        let targets = tokens.enumerated().map { index, account in
            let board: String
            switch layout.role(of: index) {
            case .publisher: board = boardNames[0]
            case .subscriber(let b, _): board = boardNames[b]
            case .idle: board = boardNames[0]
            }
            return Target(host: host, port: port, board: board, token: account.token, tls: tls)
        }
        return SpawnedServer(
            directory: directory, process: process, port: port, targets: targets,
            owner: Target(host: host, port: port, board: boardNames[0], token: ownerToken, tls: tls), boards: boardNames)
    }

    /// Stops corkd (SIGTERM, then SIGKILL after 10 s) and removes the data directory unless `keep`.
    func stop(keep: Bool) async {
        if process.isRunning {
            process.terminate()
            for _ in 0..<200 where process.isRunning { try? await Task.sleep(for: .milliseconds(50)) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
        if !keep { try? FileManager.default.removeItem(at: directory) }
    }
}
