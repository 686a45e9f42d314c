import Benchmark
import BoardCore

/// `SnapshotDiff` between two snapshots of the 1,000-card board that differ by one `card.move`, and the snapshot
/// itself (a client takes one per change before diffing).
func diffBenchmarks() {
    let before = Fixtures.board.snapshot()
    var moved = Fixtures.board
    guard case .success = moved.apply(Fixtures.move.op, context: Fixtures.context(seq: Fixtures.move.seq)) else {
        fatalError("fixture move was rejected")
    }
    let after = moved.snapshot()

    let perDiff = Benchmark.Configuration(scalingFactor: .one)
    Benchmark("Diff: SnapshotDiff, 1,000 cards, one move", configuration: perDiff) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(SnapshotDiff(from: before, to: after))
        }
    }

    Benchmark("Snapshot: Board.snapshot(), 1,000 cards", configuration: perDiff) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(moved.snapshot())
        }
    }
}
