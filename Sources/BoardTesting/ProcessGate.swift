import Foundation
import NIOConcurrencyHelpers
import Testing

/// Bounds how many tests that start processes (corkd, cork, cork-load, PostgreSQL, HAProxy, tmux, Python bots,
/// openssl) run at the same time: at most one per core.
///
/// The suite runs every test at once. Left alone, a 2-core machine ran a dozen servers, database clusters and
/// terminal panes side by side at a load average of 11-13; single tests then took minutes and the servers' own
/// deadlines cut their connections, so the suite failed by luck. A test that starts processes takes a permit for its
/// whole run (``Trait/startsProcesses(within:)``), while pure and in-process tests still run in parallel beside it.
///
/// A permit is held by a test's task and inherited by its child tasks, so nested helpers (`withCorkd` inside a test
/// that also runs `cork`) never take a second one. ``SpawnedProcess`` refuses to start a process outside a permit,
/// so a new test that forgets the trait fails with a message that names it.
public final class ProcessGate: Sendable {
    /// The gate every test shares: one permit per core (`CORK_TEST_PROCESS_SLOTS` overrides it).
    public static let shared = ProcessGate(permits: defaultPermits)

    /// One per core, or `CORK_TEST_PROCESS_SLOTS` when it holds a positive number.
    static var defaultPermits: Int {
        if let text = ProcessInfo.processInfo.environment["CORK_TEST_PROCESS_SLOTS"], let slots = Int(text), slots > 0 {
            return slots
        }
        return max(1, ProcessInfo.processInfo.activeProcessorCount)
    }

    /// Whether the current task holds a permit.
    @TaskLocal public static var isHeld = false

    private struct State {
        var free: Int
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: NIOLockedValueBox<State>
    /// How many permits the gate has.
    public let permits: Int

    /// A gate with `permits` permits.
    public init(permits: Int) {
        precondition(permits > 0, "a gate needs at least one permit")
        self.permits = permits
        state = NIOLockedValueBox(State(free: permits))
    }

    /// Runs `body` holding a permit (at once when this task already holds one), waiting first for one to be free.
    public func withPermit<T>(_ body: () async throws -> T) async throws -> T {
        if ProcessGate.isHeld { return try await body() }
        await acquire()
        defer { release() }
        return try await ProcessGate.$isHeld.withValue(true) { try await body() }
    }

    private func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLockedValue { state -> Bool in
                if state.free > 0 {
                    state.free -= 1
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if granted { continuation.resume() }
        }
    }

    private func release() {
        let next = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty {
                state.free += 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }

    /// Where each gated test's wait and run time go, one line each, when `CORK_TEST_GATE_LOG` names a file
    /// (`scripts/test-stress` sets it): how long a test that starts processes takes on its own, which the times
    /// the test runner prints (waiting included) do not say.
    static let log: FileHandle? = {
        guard let path = ProcessInfo.processInfo.environment["CORK_TEST_GATE_LOG"], !path.isEmpty else { return nil }
        FileManager.default.createFile(atPath: path, contents: nil)
        return FileHandle(forWritingAtPath: path)
    }()
    private static let logLock = NIOLock()

    static func note(test: Test, waited: Duration, ran: Duration) {
        guard let log else { return }
        func seconds(_ duration: Duration) -> String {
            let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
            return String(format: "%.1f", value)
        }
        let line = "\(seconds(ran))\t\(seconds(waited))\t\(test.name)\n"
        logLock.withLock { log.write(Data(line.utf8)) }
    }

    /// Fails unless the current task holds a permit: every helper that starts a process calls it.
    public static func requirePermit(for what: String) throws {
        guard isHeld else {
            throw TestFailure(
                "this test starts \(what) without a permit of the process gate; give its suite (or the test) the "
                    + "trait .startsProcesses(within: …) so that at most one such test per core runs at a time")
        }
    }
}

/// The trait of a test (or of every test of a suite) that starts processes: it runs holding a permit of
/// ``ProcessGate/shared``, and must finish within `limit` of getting it.
///
/// It replaces `.timeLimit`, whose clock would also count the time spent waiting for a permit behind other tests:
/// the limit here starts once the permit is held, so it is about the test alone. When it passes, an issue that says
/// so is recorded and the test is cancelled; a test that ignores the cancellation is left to the run's watchdog.
public struct StartsProcessesTrait: TestTrait, SuiteTrait, TestScoping {
    /// How long the test may run once it holds its permit.
    public var limit: Duration

    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        // Each test case takes its own permit (the runner asks once per test without a case, then once per case);
        // a suite takes none, its tests do.
        test.isSuite || testCase == nil ? nil : self
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let limit = self.limit
        let asked = ContinuousClock.now
        var permitted = asked
        defer { ProcessGate.note(test: test, waited: permitted - asked, ran: ContinuousClock.now - permitted) }
        try await ProcessGate.shared.withPermit {
            permitted = ContinuousClock.now
            // The group ends only once both its tasks have, so the test's body never outlives this call.
            try await withoutActuallyEscaping(function) { body in
            try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    try await body()
                    return true
                }
                group.addTask {
                    try await Task.sleep(for: limit)
                    return false
                }
                defer { group.cancelAll() }
                while let finished = try await group.next() {
                    if finished { return }
                    let message = "\(test.name) did not finish within \(limit) of getting its permit of the process gate "
                        + "(the time spent waiting for the permit is not counted); it was cancelled"
                    Issue.record(Comment(rawValue: message))
                    group.cancelAll()
                }
            }
            }
        }
    }
}

extension Trait where Self == StartsProcessesTrait {
    /// The test starts processes: it runs while holding a permit of ``ProcessGate/shared`` and must finish within
    /// `limit` of getting it.
    public static func startsProcesses(within limit: Duration) -> Self { StartsProcessesTrait(limit: limit) }
}

extension Duration {
    /// `minutes` minutes, for `.startsProcesses(within: .minutes(3))`.
    public static func minutes(_ minutes: Int) -> Duration { .seconds(minutes * 60) }
}
