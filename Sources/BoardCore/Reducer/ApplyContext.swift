/// Everything the reducer needs from outside: who acts, with which role, when, and which seq the change gets.
public struct ApplyContext: Hashable, Sendable {
    /// The user making the change.
    public var actor: UserID
    /// The actor's role on this board.
    public var role: Role
    /// The server's clock when the change is applied.
    public var now: Timestamp
    /// The seq the change will carry (the board's seq + 1).
    public var seq: UInt64
    /// Most members a board may reach with this change: the server's configured `members_max`. Replaying committed
    /// changes uses the default, `Limits.membersMax`, the most any server may be configured with, so a board that a
    /// server built always replays.
    public var membersMax: Int

    /// Makes a context.
    public init(actor: UserID, role: Role, now: Timestamp, seq: UInt64, membersMax: Int = Limits.membersMax) {
        self.actor = actor
        self.role = role
        self.now = now
        self.seq = seq
        self.membersMax = min(membersMax, Limits.membersMax)
    }
}

/// The result of applying an op: the new board, its activity record, and the op that would undo it.
///
/// A no-op (closing a closed card, moving a card to where it already is) is a change with `isNoop` set: the
/// board is unchanged and its seq is not consumed.
public struct Change: Hashable, Sendable {
    /// The board after the op.
    public var board: Board
    /// The activity record (its `seq` is the context's seq).
    public var activity: Activity
    /// The op that undoes this one, or nil when it cannot be undone.
    public var inverse: Op?
    /// Whether the op changed nothing: the board (and its seq) stayed as it was, and no delta is due.
    public var isNoop: Bool

    /// Makes a change.
    public init(board: Board, activity: Activity, inverse: Op?, isNoop: Bool = false) {
        self.board = board
        self.activity = activity
        self.inverse = inverse
        self.isNoop = isNoop
    }
}
