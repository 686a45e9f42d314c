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

/// A throwaway PostgreSQL cluster for one test process: `initdb` into a temporary directory, `postgres` on
/// 127.0.0.1 at a free port with its socket in that directory, started on first use and stopped when the test
/// process ends, even if it crashes or is killed (a watchdog stops it once the test process is gone).
///
/// Under root (CI) the cluster runs as ``Unprivileged/user`` (PostgreSQL refuses to run as root). The superuser
/// `corkd_test` logs in with a random password (SCRAM), so other local users cannot use the cluster.
public enum PostgresTestCluster {
    /// The binaries' directory: the newest `/usr/lib/postgresql/N/bin` (Debian's layout), else the directory of
    /// `initdb` on `PATH`; nil when PostgreSQL is not installed.
    public static let binaries: URL? = {
        let manager = FileManager.default
        let versions = ((try? manager.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? [])
            .compactMap(Int.init).sorted()
        for version in versions.reversed() {
            let bin = URL(fileURLWithPath: "/usr/lib/postgresql/\(version)/bin")
            if manager.isExecutableFile(atPath: bin.appendingPathComponent("initdb").path) { return bin }
        }
        return (try? SpawnedProcess.tool("initdb"))?.resolvingSymlinksInPath().deletingLastPathComponent()
    }()

    /// The server of this test process, started on first use (once: every later call gets the same one).
    public static func server() async throws -> PostgresLocation {
        try await started.value
    }

    private static let started = Task<PostgresLocation, any Error> { try await start() }

    /// Makes the cluster and starts it; a failure names what went wrong with the server's log.
    static func start() async throws -> PostgresLocation {
        guard let binaries else {
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
        for attempt in 1...3 {
            let port = try LoopbackPort.closed()
            let server = try SpawnedProcess(
                executable: binaries.appendingPathComponent("postgres"),
                arguments: [
                    "-D", data.path, "-k", root.path, "-p", "\(port)", "-c", "listen_addresses=127.0.0.1",
                    "-c", "max_connections=400", "-c", "fsync=off", "-c", "full_page_writes=off",
                ],
                logDirectory: logs, name: "postgres-\(attempt)", unprivileged: true)
            try watch(server.pid, root: root)
            let location = PostgresLocation(host: "127.0.0.1", port: port, user: "corkd_test", password: password, database: "postgres")
            if try await ready(location, server: server) { return location }
            lastFailure = server.standardError.suffix(2000).description
            server.killAndReap()
        }
        throw TestFailure("the test PostgreSQL did not start: \(lastFailure)")
    }

    /// Waits (at most 30 s) until the server takes a login; false if it exits first.
    private static func ready(_ location: PostgresLocation, server: SpawnedProcess) async throws -> Bool {
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
    /// server (SIGQUIT: immediate shutdown, children included) and removes the cluster's directory.
    private static func watch(_ server: Int32, root: URL) throws {
        let script = """
            while kill -0 \(getpid()) 2>/dev/null; do sleep 0.5; done
            kill -QUIT \(server) 2>/dev/null
            for i in $(seq 1 100); do kill -0 \(server) 2>/dev/null || break; sleep 0.1; done
            kill -KILL \(server) 2>/dev/null
            rm -rf '\(root.path)'
            """
        // `setsid --fork` leaves the shell in a session of its own and exits at once. It is spawned and reaped here
        // with posix_spawn and waitpid, not Foundation's Process: a child left a zombie makes Swift Testing's
        // exit-test monitor (which waits for any child) spin forever, and Process did not notice this one end.
        let arguments = ["/usr/bin/setsid", "--fork", "/bin/sh", "-c", script]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in 0...2 { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0) }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/usr/bin/setsid", &actions, nil, &argv, environ)
        guard spawned == 0 else { throw TestFailure("cannot start the PostgreSQL watchdog: error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    }
}
