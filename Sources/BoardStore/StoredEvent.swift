import BoardCore

/// One committed change of a board, as stored: the op, who made it and when, its activity record and its inverse.
public struct StoredEvent: Hashable, Sendable, Codable {
    /// The board it changed.
    public var board: BoardID
    /// Its seq on that board (the board's head + 1 when it was appended).
    public var seq: UInt64
    /// When the server applied it.
    public var at: Timestamp
    /// Who made it.
    public var actor: UserID
    /// The client installation that sent it, when it came from a client with a mutation id.
    public var clientID: String?
    /// The client's mutation id (exactly-once key with `actor` and `clientID`).
    public var mut: UInt64?
    /// The op as applied (for an undo, the inverse op that was applied).
    public var op: Op
    /// The activity record.
    public var activity: Activity
    /// The op that would undo this one, if any.
    public var inverse: Op?
    /// When this change undid an earlier one, that change's seq.
    public var undoOf: UInt64?

    /// Makes a stored event.
    public init(
        board: BoardID, seq: UInt64, at: Timestamp, actor: UserID, clientID: String? = nil, mut: UInt64? = nil,
        op: Op, activity: Activity, inverse: Op? = nil, undoOf: UInt64? = nil
    ) {
        self.board = board
        self.seq = seq
        self.at = at
        self.actor = actor
        self.clientID = clientID
        self.mut = mut
        self.op = op
        self.activity = activity
        self.inverse = inverse
        self.undoOf = undoOf
    }
}
