import BoardCore
import Foundation
import NIOCore
import Synchronization

/// The encoded `diff` messages of the last changes, shared by every web session of this server: the pages of a
/// board that show the same board get the same diff for a change, and it is encoded once instead of once per page.
final class EncodedDiffs: Sendable {
    struct Key: Hashable, Sendable {
        var board: BoardID
        var diff: SnapshotDiff
    }

    struct State {
        var lines: [Key: ByteBuffer] = [:]
        var order: [Key] = []
    }

    /// How many diffs are kept (the newest).
    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int = 256) { self.capacity = capacity }

    /// The line for `diff` on `board` (a JSON object and its `\n`): the one encoded before, or `encode`'s, kept.
    func line(for diff: SnapshotDiff, on board: BoardID, encode: () -> ByteBuffer?) -> ByteBuffer? {
        let key = Key(board: board, diff: diff)
        if let line = state.withLock({ $0.lines[key] }) { return line }
        guard let line = encode() else { return nil }
        state.withLock { state in
            guard state.lines.updateValue(line, forKey: key) == nil else { return }
            state.order.append(key)
            if state.order.count > capacity {
                let dropped = state.order.prefix(state.order.count - capacity)
                for old in dropped { state.lines[old] = nil }
                state.order.removeFirst(dropped.count)
            }
        }
        return line
    }
}

/// A message already encoded as its line.
struct EncodedLine: Encodable {
    var line: ByteBuffer
    func encode(to encoder: any Encoder) throws {}
}
