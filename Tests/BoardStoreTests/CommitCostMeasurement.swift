import BoardCore
import Foundation
import Testing

@testable import BoardStore

/// The commit's fixed cost, measured, not asserted (no timing assertions in tests). It runs only when
/// `CORKD_MEASURE_COMMIT` is set, and prints the process CPU time (user + system, every thread: the caller and the
/// store's writer) per commit and per op at 1 and 50 ops per commit, on a real SQLite file in WAL mode with
/// `synchronous=FULL`, through the path the server uses (`submit` of changes the server encoded). Run:
///
///     CORKD_MEASURE_COMMIT=2000 swift test --skip-build --filter CommitCostMeasurement
///
/// (the value is the number of commits per size).
@Suite struct CommitCostMeasurement {
    static let commits = Int(ProcessInfo.processInfo.environment["CORKD_MEASURE_COMMIT"] ?? "") ?? 0

    @Test(.enabled(if: commits > 0)) func commitCost() async throws {
        for opsPerCommit in [1, 50] {
            try await StoreFixtures.withStore { store, _ in
                _ = try await store.createBoard(Board(id: "main", name: "Main", owner: "alice"))
                let encoder = StoreCoding.makeEncoder()
                let text = String(repeating: "x", count: 120)
                // Every change encoded up front: the measured part is the store's own work.
                var seq: UInt64 = 0
                var batches: [[EncodedChange]] = []
                for _ in 0..<Self.commits {
                    var batch: [EncodedChange] = []
                    for _ in 0..<opsPerCommit {
                        seq += 1
                        let event = StoredEvent(
                            board: "main", seq: seq, at: Timestamp(milliseconds: StoreFixtures.t0), actor: "alice",
                            clientID: "bench", mut: seq, op: .chat(text: text),
                            activity: Activity(seq: seq, at: Timestamp(milliseconds: StoreFixtures.t0), actor: "alice", kind: "chat"))
                        batch.append(
                            EncodedChange(
                                event: event, op: try StoreCoding.json(event.op, encoder, "op"),
                                activity: try StoreCoding.json(event.activity, encoder, "activity"), inverse: nil))
                    }
                    batches.append(batch)
                }
                let cpu0 = Self.processCPU()
                let wall0 = ContinuousClock.now
                for batch in batches {
                    let result: Result<Void, StoreError> = await withCheckedContinuation { continuation in
                        store.submit(encoded: batch, snapshots: []) { continuation.resume(returning: $0) }
                    }
                    try result.get()
                }
                let cpu = Self.processCPU() - cpu0
                let wall = ContinuousClock.now - wall0
                let perCommit = cpu / Double(Self.commits) * 1e6
                print(
                    "commit cost: \(opsPerCommit) op(s)/commit, \(Self.commits) commits: "
                        + String(format: "%.1f µs CPU per commit, %.1f µs CPU per op, ", perCommit, perCommit / Double(opsPerCommit))
                        + "wall \(wall / Self.commits) per commit")
            }
        }
    }

    /// User + system CPU time of the whole process, in seconds.
    static func processCPU() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
