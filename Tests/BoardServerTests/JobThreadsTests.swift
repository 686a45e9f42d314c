import BoardServer
import Foundation
import Synchronization
import Testing

/// `JobThreads`, the task executor on which corkd runs each board's own task (issue 14, defect 5): jobs run on its
/// named threads, in the order they came, however many are queued at once, and its threads end with `shutdown()`.
/// Serialized: the thread counts below are of the whole test process.
@Suite(.serialized, .timeLimit(.minutes(1))) struct JobThreadsTests {
    /// This thread's system name.
    static func threadName() -> String {
        ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static let name = "jt-test-#"

    /// What the tasks record, shared with them.
    final class Recorder: Sendable {
        let values = Mutex<[Int]>([])
    }

    /// How many of this process's threads carry the pool's name.
    static func poolThreads() -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter { task in
            let name = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
            return name.hasPrefix(Self.name)
        }.count
    }

    @Test func tasksRunOnTheNamedThreadsAndTheThreadsEndWithShutdown() async throws {
        let before = Self.poolThreads()
        let pool = JobThreads(threads: 2, name: Self.name)
        let names = await withTaskGroup(of: String.self) { group in
            for _ in 0..<200 {
                group.addTask(executorPreference: pool) {
                    // A suspension in the middle: the task comes back to the pool.
                    await Task.yield()
                    return Self.threadName()
                }
            }
            return await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(names.isSubset(of: ["\(Self.name)0", "\(Self.name)1"]), "\(names)")
        #expect(!names.isEmpty)
        #expect(pool.jobsRun >= 400)
        #expect(Self.poolThreads() == before + 2)
        pool.shutdown()
        // The workers have returned; their system threads are gone a moment later.
        let deadline = ContinuousClock.now + .seconds(30)
        while Self.poolThreads() > before, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(Self.poolThreads() == before)
    }

    @Test func jobsQueuedBehindABusyWorkerRunInOrderAndTheRingGrowsToHoldThem() async throws {
        let pool = JobThreads(threads: 1, name: Self.name, capacity: 4)
        defer { pool.shutdown() }
        // The one worker is held until every task below is queued.
        let release = DispatchSemaphore(value: 0)
        let holding = Task(executorPreference: pool) { release.wait(timeout: .now() + 10) == .success }
        let order = Recorder()
        let tasks = (0..<100).map { index in
            Task(executorPreference: pool) { order.values.withLock { $0.append(index) } }
        }
        #expect(pool.ringCapacity >= 64)
        release.signal()
        #expect(await holding.value)
        for task in tasks { await task.value }
        #expect(order.values.withLock { $0 } == Array(0..<100))
    }
}
