import BoardTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The throwaway PostgreSQL of the tests must not hold on to anything of the test process.
@Suite(.enabled(if: PostgresTestDatabase.isEnabled), .startsProcesses(within: .minutes(2)))
struct PostgresTestServerTests {
    /// The watchdog shell lives as long as the test process. It once inherited every socket open when it started
    /// (NIO's are not close-on-exec): a test server's connection it held was never closed for the client, and the
    /// whole run hung on that test's wait for the close.
    @Test("the PostgreSQL watchdog holds no socket of the test process")
    func watchdogHoldsNoSocket() async throws {
        // A socket open while the watchdog starts, not close-on-exec, as NIO's are.
        let held = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(held >= 0)
        defer { close(held) }
        try await withPostgresTestServer { _ in
            let watchdogs = Self.watchdogs()
            #expect(!watchdogs.isEmpty, "no watchdog of this process found")
            for pid in watchdogs {
                let sockets = Self.descriptors(of: pid).filter { $0.target.hasPrefix("socket:") }
                #expect(sockets.isEmpty, "watchdog \(pid) holds \(sockets.map { "fd \($0.fd) → \($0.target)" })")
            }
        }
    }

    /// The shells that wait for this process to end (`while kill -0 PID …`).
    static func watchdogs() -> [Int32] {
        let needle = "while kill -0 \(getpid()) "
        let pids = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap(Int32.init)
        return pids.filter { pid in
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            let command = String(decoding: data.map { $0 == 0 ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
            return command.hasPrefix("/bin/sh -c ") && command.contains(needle)
        }
    }

    /// The open descriptors of `pid` and what each refers to.
    static func descriptors(of pid: Int32) -> [(fd: Int, target: String)] {
        let directory = "/proc/\(pid)/fd"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.compactMap { name in
            guard let fd = Int(name) else { return nil }
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(name)")) ?? "?"
            return (fd, target)
        }
    }
}
