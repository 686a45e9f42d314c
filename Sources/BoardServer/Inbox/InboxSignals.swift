import BoardCore
import Synchronization

/// The boards that committed since the inbox deriver last looked: each commit notes its board (one uncontended
/// lock, no task woken), and the deriver takes the set on its next tick.
public final class InboxSignals: Sendable {
    private let dirty = Mutex<Set<BoardID>>([])

    /// A fresh set.
    public init() {}

    /// The board committed changes.
    func committed(_ board: BoardID) {
        dirty.withLock { _ = $0.insert(board) }
    }

    /// The boards noted since the last call.
    func take() -> Set<BoardID> {
        dirty.withLock { boards in
            defer { boards = [] }
            return boards
        }
    }
}
