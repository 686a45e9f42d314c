import Benchmark
import BoardCore

/// `Board.apply(_:context:)` in place, as the board actor runs it, on the 1,000-card board: one op per iteration.
///
/// Move and edit keep one board across iterations and alternate between two ops on its seq's parity, so every
/// iteration is a real change (never a no-op) and the board stays at 1,000 cards.
func reducerBenchmarks() {
    let perOp = Benchmark.Configuration(scalingFactor: .one)

    var moveBoard = Fixtures.board
    let moves: [Op] = [
        .moveCard(card: "c500", column: "doing", placement: .top),
        .moveCard(card: "c500", column: "todo", placement: Placement(after: "c15")),
    ]
    Benchmark("Reducer: card.move on 1,000 cards", configuration: perOp) { benchmark in
        for _ in benchmark.scaledIterations {
            let op = moves[Int(moveBoard.seq & 1)]
            applied(moveBoard.apply(op, context: Fixtures.context(seq: moveBoard.seq + 1)))
        }
    }

    var editBoard = Fixtures.board
    let edits: [Op] = [
        .editCard(EditCard(card: "c500", title: "Renamed card")),
        .editCard(EditCard(card: "c500", title: "Card number 500")),
    ]
    Benchmark("Reducer: card.edit on 1,000 cards", configuration: perOp) { benchmark in
        for _ in benchmark.scaledIterations {
            let op = edits[Int(editBoard.seq & 1)]
            applied(editBoard.apply(op, context: Fixtures.context(seq: editBoard.seq + 1)))
        }
    }

    // Each iteration adds to a fresh copy of the 1,000-card board, so the board does not grow; the copy is made
    // outside the measured span.
    let add = Op.addCard(
        AddCard(card: "new", column: "doing", title: "A new card", description: "Added by the benchmark."))
    Benchmark("Reducer: card.add on 1,000 cards", configuration: perOp) { benchmark in
        var board = Fixtures.board
        board.reserveCards(board.cards.count + 1)  // own the storage and the placement index before measuring
        benchmark.startMeasurement()
        applied(board.apply(add, context: Fixtures.context(seq: board.seq + 1)))
        benchmark.stopMeasurement()
    }
}

/// Keeps the result alive for the optimizer and stops the run if the op was refused or changed nothing.
@inline(__always) private func applied(
    _ result: Result<(activity: Activity, inverse: Op?, isNoop: Bool), Rejection>
) {
    guard case .success(let change) = result, !change.isNoop else {
        fatalError("the benchmark op did not apply: \(result)")
    }
    blackHole(change)
}
