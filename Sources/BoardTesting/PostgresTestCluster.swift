import BoardStore
import Foundation

/// The throwaway PostgreSQL cluster every test of this process shares (`PostgresTestDatabase` makes a database per
/// test on it): a ``PostgresTestServer`` started on first use and stopped when the test process ends, even if it
/// crashes or is killed. A test that stops or restarts PostgreSQL makes a server of its own
/// (`withPostgresTestServer`) instead of disturbing this one.
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

    /// Never stopped by the test process: its watchdog stops it once the process is gone.
    /// The run's shared cluster is a fixture of the whole run, not a process of the test that happens to ask for it
    /// first, so it takes no permit of the process gate: a test holding no permit (a store test on PostgreSQL) may
    /// be first, while the tests holding every permit wait for the same cluster.
    private static let started = Task<PostgresLocation, any Error> {
        try await ProcessGate.$isHeld.withValue(true) { try await PostgresTestServer.make().location }
    }
}
