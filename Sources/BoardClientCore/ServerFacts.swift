import BoardCore
import BoardWire

/// One session's presence on a board, as a UI shows it (the client's own type: no wire envelope inside events).
public struct PresenceEntry: Hashable, Sendable, Codable {
    /// The session.
    public var session: SessionID
    /// The session's user.
    public var user: UserID
    /// What the user is doing.
    public var state: PresenceActivity
    /// The card viewed, edited or dragged.
    public var card: CardID?
    /// While dragging: the column the card hovers over.
    public var column: ColumnID?
    /// While dragging: the index in `column` the card hovers at.
    public var index: Int?
    /// Whether the person is away from the keyboard.
    public var away: Bool?

    /// An entry.
    public init(
        session: SessionID, user: UserID, state: PresenceActivity, card: CardID? = nil, column: ColumnID? = nil,
        index: Int? = nil, away: Bool? = nil
    ) {
        self.session = session
        self.user = user
        self.state = state
        self.card = card
        self.column = column
        self.index = index
        self.away = away
    }

    /// The entry a `presence` or `presence_state` line carries.
    public init(_ wire: ServerMessage.PresenceEntry) {
        self.init(
            session: wire.session, user: wire.user, state: wire.state, card: wire.card, column: wire.column,
            index: wire.index, away: wire.away)
    }
}

/// Why the server refused one of this client's ops (a `reject` line, as the client reports it).
public struct OpRejection: Hashable, Sendable {
    /// The board.
    public var board: BoardID
    /// The refused mutation id.
    public var mut: UInt64
    /// Why.
    public var code: RejectCode
    /// A sentence a person can act on.
    public var message: String
    /// The value that made the op fail (the current description on `conflict`, …).
    public var current: JSONValue?
    /// For `rate_limited`: when to retry.
    public var retryAfterMs: UInt64?

    /// A rejection.
    public init(
        board: BoardID, mut: UInt64, code: RejectCode, message: String, current: JSONValue? = nil,
        retryAfterMs: UInt64? = nil
    ) {
        self.board = board
        self.mut = mut
        self.code = code
        self.message = message
        self.current = current
        self.retryAfterMs = retryAfterMs
    }

    /// The rejection for a reducer `Rejection`.
    public init(board: BoardID, mut: UInt64, rejection: Rejection) {
        self.init(
            board: board, mut: mut, code: .rejected(rejection.code), message: rejection.message,
            current: rejection.current)
    }

    /// The rejection a `reject` line carries.
    public init(_ wire: ServerMessage.Reject) {
        self.init(
            board: wire.board, mut: wire.mut, code: wire.code, message: wire.message, current: wire.current,
            retryAfterMs: wire.retryAfterMs)
    }
}
