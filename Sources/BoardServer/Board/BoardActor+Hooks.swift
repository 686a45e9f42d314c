import BoardCore
import BoardStore

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

    /// The durable board and its changes after `seq`, from the recent log: nil when the log no longer holds the change
    /// after `seq` (then the store has them). Derived work (inboxes, webhooks) reads what the board already holds
    /// instead of reading and decoding it again from the store.
    func committed(after seq: UInt64) -> (board: Board, changes: [CommittedChange]?) {
        settleIfPublished()
        return (committed, loggedChanges(after: seq))
    }

    /// The changes after `seq` from the recent log, for a webhook; nil when the log no longer holds the change after
    /// `seq` or the board is no longer served here (then the store has them).
    func changesForHooks(after seq: UInt64) -> [CommittedChange]? {
        settleIfPublished()
        guard !isClosed else { return nil }
        return loggedChanges(after: seq)
    }

    /// The committed changes after `seq` as the log holds them (empty when there are none); nil when the log does
    /// not reach back to the change after `seq`. Only the entries after `seq` are copied, and of each its activity.
    private func loggedChanges(after seq: UInt64) -> [CommittedChange]? {
        let head = committed.seq
        guard seq < head else { return [] }
        guard let first = log.firstSeq, first <= seq + 1, log.entry(head) != nil else { return nil }
        let entries = log.entries
        let start = entries.startIndex + Int(seq + 1 - first)
        let end = entries.startIndex + Int(head - first)
        return entries[start...end].map { CommittedChange(seq: $0.seq, activity: $0.activity) }
    }
}

/// A committed change as derived work needs it: its seq and its activity record.
struct CommittedChange: Sendable {
    var seq: UInt64
    var activity: Activity

    init(seq: UInt64, activity: Activity) {
        self.seq = seq
        self.activity = activity
    }

    init(_ stored: StoredEvent) {
        self.init(seq: stored.seq, activity: stored.activity)
    }
}
