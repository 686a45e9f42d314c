import BoardStore
import Foundation
import Logging
import NIOPosix
import PostgresNIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One throwaway PostgreSQL server: `initdb` into a temporary directory, `postgres` on 127.0.0.1 at a free port with
/// its socket in that directory. A test may `stop()` it and `start()` it again on the same port and data (a database
/// restart, as clients see it). A watchdog stops it and removes its directory once the test process is gone, even if
/// it crashes or is killed.
///
/// Under root (CI) it runs as ``Unprivileged/user`` (PostgreSQL refuses to run as root). The superuser `corkd_test`
/// logs in with a random password (SCRAM), so other local users cannot use it.
///
/// Not `Sendable`: one task owns it.
public final class PostgresTestServer {
    /// Where it listens, as the superuser, on the database `postgres`.
    public let location: PostgresLocation
    private let binaries: URL
    private let root: URL
    private let data: URL
    private let logs: URL
    /// The running (or last) `postgres` process.
    private var server: SpawnedProcess?
    private var starts = 0

    private init(location: PostgresLocation, binaries: URL, root: URL) {
        self.location = location
        self.binaries = binaries
        self.root = root
        data = root.appendingPathComponent("data")
        logs = root.appendingPathComponent("logs")
    }

    /// Makes the cluster and starts it; a failure names what went wrong with the server's log.
    static func make() async throws -> PostgresTestServer {
        // One cluster made at a time: initdb and a first start cost seconds of CPU each, and several suites making
        // theirs at once starved the in-process servers of the rest of the suite past their 5 s handshake timeouts.
        await ClusterGate.shared.enter()
        defer { Task { await ClusterGate.shared.leave() } }
        return try await makeNow()
    }

    private static func makeNow() async throws -> PostgresTestServer {
        guard let binaries = PostgresTestCluster.binaries else {
            throw TestFailure("PostgreSQL is not installed (no initdb in /usr/lib/postgresql/*/bin or on PATH): apt-get install postgresql")
        }
        let root = URL(fileURLWithPath: "/tmp").appendingPathComponent("corkd-pg-\(getpid())-\(UUID().uuidString.prefix(8))")
        let data = root.appendingPathComponent("data")
        let logs = root.appendingPathComponent("logs")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        chmod(root.path, 0o700)
        let password = UUID().uuidString.replacingOccurrences(of: "-", with: "")
        let passwordFile = root.appendingPathComponent("password")
        try Data(password.utf8).write(to: passwordFile)
        try Unprivileged.handOver(root)
        try watch(data: data, root: root)
        let initdb = try await SpawnedProcess.run(
            binaries.appendingPathComponent("initdb"),
            [
                "-D", data.path, "-U", "corkd_test", "--pwfile", passwordFile.path, "--auth=scram-sha-256",
                "-E", "UTF8", "--locale=C", "--no-sync",
            ],
            timeout: .seconds(120), logDirectory: logs, name: "initdb", unprivileged: true)
        guard initdb.exit.isSuccess else {
            throw TestFailure("initdb failed (\(initdb.exit)): \(initdb.standardError.suffix(2000))")
        }
        try? FileManager.default.removeItem(at: passwordFile)
        var lastFailure = ""
        // A free port can be taken between choosing it and postgres binding it: try a few.
        for _ in 1...3 {
            let location = PostgresLocation(
                host: "127.0.0.1", port: try LoopbackPort.closed(), user: "corkd_test", password: password, database: "postgres")
            let cluster = PostgresTestServer(location: location, binaries: binaries, root: root)
            do {
                try await cluster.start()
                return cluster
            } catch {
                lastFailure = "\(error)"
                cluster.server?.killAndReap()
            }
        }
        throw TestFailure("the test PostgreSQL did not start: \(lastFailure)")
    }

    /// Starts `postgres` (again) on the data directory and port, and waits (at most 30 s) until it takes a login.
    public func start() async throws {
        if let server, server.isRunning { throw TestFailure("postgres is already running (pid \(server.pid))") }
        starts += 1
        let child = try SpawnedProcess(
            executable: binaries.appendingPathComponent("postgres"),
            arguments: [
                "-D", data.path, "-k", root.path, "-p", "\(location.port)", "-c", "listen_addresses=127.0.0.1",
                "-c", "max_connections=400", "-c", "fsync=off", "-c", "full_page_writes=off",
            ],
            logDirectory: logs, name: "postgres-\(starts)", unprivileged: true)
        server = child
        guard try await ready(child) else {
            throw TestFailure("postgres exited before taking a login: \(child.standardError.suffix(2000))")
        }
    }

    /// Stops `postgres` the way an operator's `pg_ctl stop -m fast` does (SIGINT: every session is disconnected,
    /// open transactions roll back) and waits (at most 30 s) until it has exited.
    public func stop() async throws {
        guard let server, server.isRunning else { return }
        server.send(signal: SIGINT)
        guard await server.waitForExit(timeout: .seconds(30)) != nil else {
            throw TestFailure("postgres did not stop within 30 s of SIGINT: \(server.standardError.suffix(2000))")
        }
    }

    /// Stops `postgres` if it runs (SIGQUIT, its children included; SIGKILL after 5 s) and removes the cluster's
    /// directory.
    func cleanup() {
        if let server, server.isRunning {
            server.send(signal: SIGQUIT)
            let deadline = ContinuousClock.now + .seconds(5)
            while server.isRunning, ContinuousClock.now < deadline { usleep(10_000) }
            server.killAndReap()
        }
        try? FileManager.default.removeItem(at: root)
    }

    /// Waits (at most 30 s) until the server takes a login; false if it exits first.
    private func ready(_ server: SpawnedProcess) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        var logger = Logger(label: "corkboard.tests.postgres")
        logger.logLevel = .critical
        let configuration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.user, password: location.password,
            database: location.database, tls: .disable)
        while ContinuousClock.now < deadline {
            guard server.isRunning else { return false }
            if let connection = try? await PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 1, logger: logger)
            {
                try? await connection.close()
                return true
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestFailure("the test PostgreSQL did not take a login within 30 s: \(server.standardError.suffix(2000))")
    }

    /// Starts a watchdog in a session of its own: once this process is gone (ended, crashed, killed), it stops the
    /// server whose pid `postmaster.pid` names, whichever start made it (SIGQUIT: immediate shutdown, children
    /// included), and removes the cluster's directory.
    private static func watch(data: URL, root: URL) throws {
        let script = """
            while kill -0 \(getpid()) 2>/dev/null; do sleep 0.5; done
            server=$(head -n 1 '\(data.path)/postmaster.pid' 2>/dev/null)
            if [ -n "$server" ]; then
              kill -QUIT "$server" 2>/dev/null
              for i in $(seq 1 100); do kill -0 "$server" 2>/dev/null || break; sleep 0.1; done
              kill -KILL "$server" 2>/dev/null
            fi
            rm -rf '\(root.path)'
            """
        // `setsid --fork` leaves the shell in a session of its own and exits at once. It is spawned and reaped here
        // with posix_spawn and waitpid, not Foundation's Process: a child left a zombie makes Swift Testing's
        // exit-test monitor (which waits for any child) spin forever, and Process did not notice this one end.
        //
        // It gets stdin, stdout and stderr on /dev/null and no other descriptor of this process. NIO's sockets are
        // not close-on-exec, and the shell lives as long as the test process: a socket it inherited stayed open
        // after the test closed its own copy. A full run hung for good on exactly that: a test server closed a
        // connection at its handshake timeout while this shell, spawned at that instant, still held the accepted
        // socket (and the listener), so the client never saw the close it waited for.
        let arguments = ["/usr/bin/setsid", "--fork", "/bin/sh", "-c", script]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in 0...2 { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0) }
        closeAllFrom3(&actions)
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/usr/bin/setsid", &actions, nil, &argv, environ)
        guard spawned == 0 else { throw TestFailure("cannot start the PostgreSQL watchdog: error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    }
}

/// Adds "close every descriptor from 3 up" to `actions`: glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34
/// and later, looked up at run time because Swift's Glibc module does not declare it), else a close for each
/// descriptor open now.
private func closeAllFrom3(_ actions: inout posix_spawn_file_actions_t) {
    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
        _ = unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, 3)
        return
    }
    let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    for fd in open.compactMap(Int32.init) where fd > 2 { posix_spawn_file_actions_addclose(&actions, fd) }
}

/// Runs `body` with a PostgreSQL server of its own (one the test may stop and start); whatever happens, the server
/// is gone and its directory removed when this returns.
public func withPostgresTestServer<T>(_ body: (PostgresTestServer) async throws -> T) async throws -> T {
    let server = try await PostgresTestServer.make()
    defer { server.cleanup() }
    return try await body(server)
}

/// Lets one test PostgreSQL cluster be made at a time (first come, first served).
actor ClusterGate {
    static let shared = ClusterGate()
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func enter() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
