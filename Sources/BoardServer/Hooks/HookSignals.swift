import BoardCore
import Synchronization

/// What the webhook deliverer (``HookDispatcher``) is told: commits, changed hooks, and hooks to try now.
///
/// Yielding never waits and never fails, so a board's commit path only drops a note here; the deliverer reads the
/// committed changes from the store on its own tasks, and a slow receiver never delays an ack or the fan-out. Notes
/// are hints: the buffer keeps the newest, and the deliverer also reads the store every `HookSettings.idlePoll`,
/// so a dropped note delays a delivery by at most that long and loses nothing.
///
/// While no hook exists anywhere (the deliverer's last read of the store's list), commit notes are not even yielded:
/// a server without webhooks wakes no deliverer task per op.
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
    /// Whether a hook may exist: set by every `hooksChanged` note, then to the truth by each read of the hook list.
    private let armed = Atomic<Bool>(false)

    /// A fresh channel.
    public init() {
        (stream, continuation) = AsyncStream.makeStream(of: Signal.self, bufferingPolicy: .bufferingNewest(1024))
    }

    /// The board committed changes (its actor, once they are durable).
    func committed(_ board: BoardID) {
        guard armed.load(ordering: .relaxed) else { return }
        continuation.yield(.committed(board))
    }

    /// A hook was added or removed (commit notes flow from now on, until a read of the list finds none).
    func hooksChanged() {
        armed.store(true, ordering: .relaxed)
        continuation.yield(.hooksChanged)
    }

    /// Time to read the hook list again (the deliverer's idle poll; it finds hooks added on other nodes).
    func poll() { continuation.yield(.hooksChanged) }

    /// Ends the stream (tests read what was yielded).
    func finish() { continuation.finish() }

    /// The deliverer read the hook list: commit notes flow only while it holds at least one hook.
    func hooksRead(any: Bool) { armed.store(any, ordering: .relaxed) }

    /// The hook's receiver answered a test: try its queue now.
    func retryNow(_ id: String) { continuation.yield(.retryNow(id)) }
}
