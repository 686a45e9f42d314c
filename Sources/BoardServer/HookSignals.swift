import BoardCore

/// What the webhook deliverer (``HookDispatcher``) is told: commits, changed hooks, and hooks to try now.
///
/// Yielding never waits and never fails, so a board's commit path only drops a note here; the deliverer reads the
/// committed changes from the store on its own tasks, and a slow receiver never delays an ack or the fan-out. Notes
/// are hints: the buffer keeps the newest, and the deliverer also reads the store every `HookSettings.idlePoll`,
/// so a dropped note delays a delivery by at most that long and loses nothing.
public final class HookSignals: Sendable {
    /// One note.
    enum Signal: Sendable {
        /// The board committed changes.
        case committed(BoardID)
        /// Hooks were added or removed: read the list again.
        case hooksChanged
        /// Try this hook now (its receiver answered a `hook.test`): a failing hook need not wait for its backoff.
        case retryNow(String)
    }

    let stream: AsyncStream<Signal>
    private let continuation: AsyncStream<Signal>.Continuation

    /// A fresh channel.
    public init() {
        (stream, continuation) = AsyncStream.makeStream(of: Signal.self, bufferingPolicy: .bufferingNewest(1024))
    }

    /// The board committed changes (its actor, once they are durable).
    func committed(_ board: BoardID) { continuation.yield(.committed(board)) }

    /// A hook was added or removed.
    func hooksChanged() { continuation.yield(.hooksChanged) }

    /// The hook's receiver answered a test: try its queue now.
    func retryNow(_ id: String) { continuation.yield(.retryNow(id)) }
}
