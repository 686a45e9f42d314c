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
}
