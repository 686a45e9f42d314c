import Synchronization

/// The store's one writer queue: what boards handed over and the writer has not taken yet (group commit).
///
/// Any thread queues a change (`enqueue`); the writer takes everything queued at the start of each transaction
/// (`takeAll`), so one transaction, one fsync, carries whatever every board handed over while the previous one was
/// written. The caller that finds the writer idle must start it; the writer stops when it finds nothing queued.
final class CommitQueue: Sendable {
    /// One hand-over: an encoded batch and whom to tell how it ended (called on the writer, once).
    struct Ticket: Sendable {
        var batch: EncodedBatch
        var done: @Sendable (Result<Void, StoreError>) -> Void
    }

    private let state = Mutex<(waiting: [Ticket], writing: Bool)>(([], false))
    /// Transactions written and the hand-overs they carried (for tests and diagnostics).
    let transactions = Atomic<Int>(0)
    let appended = Atomic<Int>(0)

    /// Queues a ticket; true when the writer is idle, so the caller must start it.
    func enqueue(_ ticket: Ticket) -> Bool {
        state.withLock { state in
            state.waiting.append(ticket)
            if state.writing { return false }
            state.writing = true
            return true
        }
    }

    /// Everything queued, or nil (and the writer is idle from now on) when nothing is.
    func takeAll() -> [Ticket]? {
        state.withLock { state in
            guard !state.waiting.isEmpty else {
                state.writing = false
                return nil
            }
            defer { state.waiting = [] }
            transactions.add(1, ordering: .relaxed)
            appended.add(state.waiting.count, ordering: .relaxed)
            return state.waiting
        }
    }

    /// After a turn: true when more is queued (the writer takes another turn), else the writer is idle from now on.
    func continues() -> Bool {
        state.withLock { state in
            if state.waiting.isEmpty { state.writing = false }
            return state.writing
        }
    }
}
