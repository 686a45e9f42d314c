import Benchmark
import BoardCore
import BoardWire
import Foundation

/// A `delta` line for one `card.move` (344 bytes with its activity): the hand-written writer the server uses,
/// against the `Encoder` protocol path and Foundation's `JSONEncoder` on the same message.
func encodeBenchmarks() {
    let move = Fixtures.move
    let delta = Fixtures.moveDelta
    let message = ServerMessage.delta(delta)
    let bytes =
        LineWriter.deltaLine(
            board: delta.board, seq: delta.seq, at: delta.at, actor: delta.actor, clientID: delta.clientID,
            mut: delta.mut, op: move.op, activity: move.activity
        ).count

    Benchmark("Delta encode: LineWriter.deltaLine (hand-written), card.move delta of \(bytes) B") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(
                LineWriter.deltaLine(
                    board: delta.board, seq: delta.seq, at: delta.at, actor: delta.actor, clientID: delta.clientID,
                    mut: delta.mut, op: move.op, activity: move.activity))
        }
    }

    Benchmark("Delta encode: CompactJSONEncoder (Encoder protocol)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try? LineWriter.encode(message))
        }
    }

    Benchmark("Delta encode: LineCoder.encodeLine (JSONEncoder, sorted keys)") { benchmark in
        let coder = LineCoder()
        for _ in benchmark.scaledIterations {
            blackHole(coder.encodeLine(message))
        }
    }

    Benchmark("Delta encode: JSONEncoder (default options)") { benchmark in
        let encoder = JSONEncoder()
        for _ in benchmark.scaledIterations {
            blackHole(try? encoder.encode(message))
        }
    }
}
