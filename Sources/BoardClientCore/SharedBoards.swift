import BoardCore
import Synchronization

/// The confirmed boards that several clients of one process keep in common: the server's web sessions, one client
/// per browser tab, most of them on the same few boards.
///
/// Every client of a board applies the same deltas to the same snapshot, so their confirmed boards are equal at each
/// seq. The first replica to reach a seq applies the delta and offers the result here; the others take that value
/// instead of applying the delta themselves. A `Board` is a copy-on-write value, so they then share one card table,
/// one set of titles and one member list: memory grows with the boards shown, not with the tabs showing them, and
/// a delta is applied once per board instead of once per tab.
public final class SharedBoards: Sendable {
    struct Entry: Sendable {
        var epoch: String
        var board: Board
    }

    private let entries = Mutex<[BoardID: Entry]>([:])

    /// An empty set.
    public init() {}

    /// The shared confirmed board `board` at `seq` in `epoch`, if a replica offered that one.
    public func board(_ board: BoardID, epoch: String, seq: UInt64) -> Board? {
        entries.withLock { entries in
            guard let entry = entries[board], entry.epoch == epoch, entry.board.seq == seq else { return nil }
            return entry.board
        }
    }

    /// Keeps `board` (a replica's confirmed board at its seq) unless a newer one of the same epoch is kept.
    public func offer(_ board: Board, epoch: String) {
        entries.withLock { entries in
            if let kept = entries[board.id], kept.epoch == epoch, kept.board.seq >= board.seq { return }
            entries[board.id] = Entry(epoch: epoch, board: board)
        }
    }

    /// Forgets `board` (no client shows it any more).
    public func forget(_ board: BoardID) {
        _ = entries.withLock { $0.removeValue(forKey: board) }
    }

    /// The boards kept.
    public var count: Int { entries.withLock { $0.count } }
}
