import BoardTesting
import Foundation
import Testing

/// The real `corkd serve` starts itself again with glibc's tcache two deep (`MallocTuning`, issue 14 defect 5), and
/// leaves an operator's own `glibc.malloc.tcache_count` alone. What the setting does to memory is measured, not
/// tested: `bench/idle-connections.py`.
@Suite(.startsProcesses(within: .minutes(2))) struct ProcessMallocTuningTests {
    /// The environment the running server was (last) started with, from `/proc`. glibc shortens a `GLIBC_TUNABLES`
    /// of several settings in place as it reads them, so only its first setting shows there.
    static func environment(of corkd: CorkdProcess) throws -> [String: String] {
        let environ = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(corkd.pid)/environ"))
        var result: [String: String] = [:]
        for entry in environ.split(separator: 0) {
            let text = String(decoding: entry, as: UTF8.self)
            guard let equals = text.firstIndex(of: "=") else { continue }
            result[String(text[..<equals])] = String(text[text.index(after: equals)...])
        }
        return result
    }

    /// This process's environment with the three variables as given (nil: absent).
    static func environment(tunables: String?, tuning: String? = nil) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["GLIBC_TUNABLES"] = tunables
        environment["CORKD_MALLOC_TUNING"] = tuning
        environment["CORKD_MALLOC_TUNED"] = nil
        return environment
    }

    @Test func servesWithTheTcacheTwoDeep() async throws {
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        try await corkd.start(environment: Self.environment(tunables: nil))
        let started = try Self.environment(of: corkd)
        #expect(started["GLIBC_TUNABLES"] == "glibc.malloc.tcache_count=2")
        #expect(started["CORKD_MALLOC_TUNED"] == "glibc.malloc.tcache_count=2", "started again with the setting")
        // Started again by its own name: `ps`, `pgrep corkd` and the process's comm still say corkd.
        let comm = try String(contentsOfFile: "/proc/\(corkd.pid)/comm", encoding: .utf8)
        #expect(comm.trimmingCharacters(in: .whitespacesAndNewlines) == CorkdProcess.executable.lastPathComponent.prefix(15).description)
        // The process that listens is the one started again (same pid), and it serves.
        let probe = try await WireProbe.connect(port: corkd.port, fingerprint: try corkd.pinned())
        try await probe.send(#"{"type":"hello","version":1,"client":"test","token":"\#(corkd.ownerToken)","client_id":"t"}"#)
        _ = try await probe.expect(type: "welcome")
        await probe.close()
        _ = try await corkd.terminate()
    }

    @Test func keepsTheOperatorsTunablesAndAddsToOthers() async throws {
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        try await corkd.start(environment: Self.environment(tunables: "glibc.malloc.tcache_count=5"))
        var started = try Self.environment(of: corkd)
        #expect(started["GLIBC_TUNABLES"] == "glibc.malloc.tcache_count=5")
        #expect(started["CORKD_MALLOC_TUNED"] == nil, "not started again")
        _ = try await corkd.terminate()
        try await corkd.start(environment: Self.environment(tunables: "glibc.malloc.trim_threshold=131072"))
        started = try Self.environment(of: corkd)
        #expect(started["GLIBC_TUNABLES"]?.hasPrefix("glibc.malloc.trim_threshold=131072") == true)
        #expect(started["CORKD_MALLOC_TUNED"] == "glibc.malloc.tcache_count=2", "started again, the setting added")
        _ = try await corkd.terminate()
        try await corkd.start(environment: Self.environment(tunables: nil, tuning: "off"))
        started = try Self.environment(of: corkd)
        #expect(started["GLIBC_TUNABLES"] == nil)
        #expect(started["CORKD_MALLOC_TUNED"] == nil)
        _ = try await corkd.terminate()
    }
}
