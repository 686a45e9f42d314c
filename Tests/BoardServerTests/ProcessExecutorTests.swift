import BoardTesting
import Foundation
import Testing

/// The real `corkd serve` runs Swift's tasks on libdispatch's workers, and on its NIO event loops with
/// `CORKD_EXECUTOR=loops` (`ConcurrencyOnLoops`, issue 14 defect 5). corkd says at debug level where its own start
/// task resumed (on a loop or not); what the change does to memory is measured, not tested:
/// `bench/idle-connections.py`.
@Suite(.timeLimit(.minutes(2))) struct ProcessExecutorTests {
    /// Waits (bounded) for `text` in corkd's stderr.
    static func logged(_ text: String, by corkd: CorkdProcess) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if corkd.standardError.contains(text) { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    @Test func tasksRunOnTheEventLoopsOnlyWhenTheOperatorSaysLoops() async throws {
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        var environment = ProcessInfo.processInfo.environment
        environment["CORKD_EXECUTOR"] = nil
        for (executor, expected) in [(nil, "libdispatch's worker threads"), ("loops", "the event loops")] {
            environment["CORKD_EXECUTOR"] = executor
            try await corkd.start(options: ["--log-level", "debug"], environment: environment)
            let said = try await Self.logged("Swift tasks run on \(expected)", by: corkd)
            #expect(said, "CORKD_EXECUTOR=\(executor ?? "(unset)"): \(corkd.standardError.suffix(2000))")
            // And it serves.
            let probe = try await WireProbe.connect(port: corkd.port, fingerprint: try corkd.pinned())
            try await probe.send(
                #"{"type":"hello","version":1,"client":"test","token":"\#(corkd.ownerToken)","client_id":"t"}"#)
            _ = try await probe.expect(type: "welcome")
            try await probe.send(#"{"type":"subscribe","board":"main","presence":false}"#)
            _ = try await probe.expect(type: "subscribed", skipping: ["snapshot", "presence.state", "ping"])
            await probe.close()
            #expect(try await corkd.terminate().isSuccess)
        }
    }
}
