import BoardCore

extension BoardActor {
    /// The user's role on the durable board and the board's seq; nil when the user is not a member (or the board
    /// is no longer served here). Hook requests are the owner's (Protocol.md, "Hooks").
    func roleAndSeq(of user: UserID) -> (role: Role, seq: UInt64)? {
        settleIfPublished()
        guard !isClosed, let member = committed.members[user] else { return nil }
        return (member.role, committed.seq)
    }

    /// The durable board, for matching a webhook's query (the board as it is now, ``HookDelivery``); nil once the
    /// board is archived here.
    func committedForHooks() -> Board? {
        settleIfPublished()
        guard !isClosed else { return nil }
        return committed
    }

    /// The durable board and the activities of its changes after `seq` through the board's seq, from the recent log:
    /// nil when the log no longer holds the change after `seq` (then the store has them). Derived work (inboxes)
    /// reads what the board already holds instead of reading and decoding it again from the store.
    func committed(after seq: UInt64) -> (board: Board, changes: [(seq: UInt64, activity: Activity)]?) {
        settleIfPublished()
        let board = committed
        guard seq < board.seq else { return (board, []) }
        guard let first = log.firstSeq, first <= seq + 1, log.entry(board.seq) != nil else { return (board, nil) }
        // Only the entries after `seq`, and of each only its activity (the log holds up to `history_max`).
        let entries = log.entries
        let start = entries.startIndex + Int(seq + 1 - first)
        let end = entries.startIndex + Int(board.seq - first)
        return (board, entries[start...end].map { ($0.seq, $0.activity) })
    }
}
