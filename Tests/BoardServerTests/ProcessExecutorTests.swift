import BoardTesting
import Foundation
import Testing

/// The real `corkd serve` runs Swift's tasks on its NIO event loops and each board's own task on `board-#N` threads,
/// unless `CORKD_EXECUTOR=dispatch` keeps libdispatch's workers (`ConcurrencyOnLoops`, issue 14 defect 5); a value it
/// does not know is said and the default used. corkd says at debug level where its own start task resumed (on a loop
/// or not); what the choice does to memory and speed is measured, not tested: `bench/idle-connections.py`, the
/// anchor.
@Suite(.startsProcesses(within: .minutes(2))) struct ProcessExecutorTests {
    /// Waits (bounded) for `text` in corkd's stderr.
    static func logged(_ text: String, by corkd: CorkdProcess) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if corkd.standardError.contains(text) { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// The system names of a process's threads.
    static func threadNames(of pid: Int32) -> Set<String> {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return Set(tasks.compactMap { task in
            (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
        })
    }

    /// How many times the process's `board-#N` threads have been scheduled (`schedstat`'s third field, per thread).
    static func boardThreadRuns(of pid: Int32) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.reduce(0) { total, task in
            let comm = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8)) ?? ""
            guard comm.hasPrefix("board-#"),
                let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8),
                let runs = stat.split(separator: " ").dropFirst(2).first.flatMap({ Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
            else { return total }
            return total + runs
        }
    }

    @Test func tasksRunOnTheEventLoopsUnlessTheOperatorSaysDispatch() async throws {
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        var environment = ProcessInfo.processInfo.environment
        environment["CORKD_EXECUTOR"] = nil
        for (executor, expected) in [
            (nil, "the event loops, boards on threads of their own"), ("dispatch", "libdispatch's worker threads"),
            ("loops", "the event loops, boards on threads of their own"),
            ("threads", "the event loops, boards on threads of their own"),
        ] {
            environment["CORKD_EXECUTOR"] = executor
            try await corkd.start(options: ["--log-level", "debug"], environment: environment)
            let said = try await Self.logged("Swift tasks run on \(expected)", by: corkd)
            #expect(said, "CORKD_EXECUTOR=\(executor ?? "(unset)"): \(corkd.standardError.suffix(2000))")
            #expect(
                corkd.standardError.contains("CORKD_EXECUTOR=threads is neither loops nor dispatch") == (executor == "threads"))
            // The boards' threads are there exactly when the loops run the tasks.
            #expect(Self.threadNames(of: corkd.pid).contains("board-#0") == (executor != "dispatch"))
            // And it serves.
            let probe = try await WireProbe.connect(port: corkd.port, fingerprint: try corkd.pinned())
            try await probe.send(
                #"{"type":"hello","version":1,"client":"test","token":"\#(corkd.ownerToken)","client_id":"t-\#(executor ?? "default")"}"#)
            _ = try await probe.expect(type: "welcome")
            try await probe.send(#"{"type":"subscribe","board":"main","presence":false}"#)
            _ = try await probe.expect(type: "subscribed", skipping: ["snapshot", "presence.state", "ping"])
            // An op's commit is settled by the board's own task: on the boards' threads unless dispatch was chosen.
            let before = Self.boardThreadRuns(of: corkd.pid)
            for mut in 1...20 {
                try await probe.send(#"{"type":"op","board":"main","mut":\#(mut),"op":{"kind":"chat","text":"hi"}}"#)
                _ = try await probe.expect(type: "ack", skipping: ["delta", "presence.state", "presence", "ping"])
            }
            #expect((Self.boardThreadRuns(of: corkd.pid) > before) == (executor != "dispatch"))
            await probe.close()
            #expect(try await corkd.terminate().isSuccess)
        }
    }
}
