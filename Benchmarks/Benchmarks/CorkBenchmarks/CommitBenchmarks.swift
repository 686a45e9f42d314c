import Benchmark
import BoardCore
import BoardStore
import Foundation
import Logging

/// The commit's fixed cost: `SQLiteStore.append` of one event and of 50 events per transaction, on a real
/// SQLite file in WAL mode with `synchronous=FULL`. Read the CPU metrics (`cpuUser`, `cpuSystem`) for the cost per
/// commit; divide by the ops per commit for the cost per op. Wall time includes the fsync.
func commitBenchmarks() {
    for opsPerCommit in [1, 50] {
        Benchmark(
            "Commit: SQLiteStore.append, \(opsPerCommit) chat op(s) per transaction",
            configuration: .init(metrics: [.wallClock, .cpuUser, .cpuSystem, .mallocCountTotal], scalingFactor: .one)
        ) { benchmark in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("commit-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                let store = try await SQLiteStore.open(directory: directory, logger: Logger(label: "bench"))
                _ = try await store.createBoard(Board(id: "main", name: "Main", owner: "alice"))
                var seq: UInt64 = 0
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations {
                    var events: [StoredEvent] = []
                    for _ in 0..<opsPerCommit {
                        seq += 1
                        events.append(
                            StoredEvent(
                                board: "main", seq: seq, at: Fixtures.now, actor: Fixtures.actor, clientID: "bench",
                                mut: seq, op: .chat(text: "hello"),
                                activity: Activity(seq: seq, at: Fixtures.now, actor: Fixtures.actor, kind: "chat")))
                    }
                    try await store.append(events, snapshots: [])
                }
                benchmark.stopMeasurement()
                try await store.close()
            } catch {
                fatalError("commit benchmark failed: \(error)")
            }
        }
    }
}
