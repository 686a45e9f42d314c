import BoardCore

/// What a store shared by several nodes says about the boards' heads (`HeadWatching.watchHeads`).
public enum HeadSignal: Sendable, Equatable {
    /// Listening (again): every commit from now on is announced. Commits made while nobody listened were not, so
    /// every loaded board must catch up by seq from the events table. `reconnected` is false the first time.
    case listening(reconnected: Bool)
    /// The listening connection is gone, or could not be made again (the reason, for the log; `attempt` counts the
    /// tries since the last `.listening`, from 1): announcements are missed until the next `.listening`.
    case lost(String, attempt: Int)
    /// A commit (this node's or another's) moved `board` to `seq`; `committedAt` is the database's clock at the
    /// commit, for the notify lag.
    case moved(board: BoardID, seq: UInt64, committedAt: Timestamp)
}

/// A store that announces every board's new head after each commit (PostgreSQL's `NOTIFY`), so that a node learns
/// of what other nodes committed.
public protocol HeadWatching: Sendable {
    /// Listens for head announcements and hands each to `signal`, in order, until the task is cancelled. A lost
    /// connection is reported (`.lost`), re-established every `retryDelay` until it works, and then reported
    /// (`.listening(reconnected: true)`).
    func watchHeads(retryDelay: Duration, _ signal: @escaping @Sendable (HeadSignal) async -> Void) async
}
