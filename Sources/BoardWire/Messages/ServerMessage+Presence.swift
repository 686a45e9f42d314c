import BoardCore

extension ServerMessage {
    /// One session's presence on a board.
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
        /// What the person says about being away, when they are.
        public var awayNote: String?

        enum CodingKeys: String, CodingKey {
            case session, user, state, card, column, index, away
            case awayNote = "away_note"
        }

        /// Makes an entry.
        public init(
            session: SessionID, user: UserID, state: PresenceActivity, card: CardID? = nil, column: ColumnID? = nil,
            index: Int? = nil, away: Bool? = nil, awayNote: String? = nil
        ) {
            self.session = session
            self.user = user
            self.state = state
            self.card = card
            self.column = column
            self.index = index
            self.away = away
            self.awayNote = awayNote
        }
    }

    /// `presence.state`: every session present on a board, sent once on subscribe.
    public struct PresenceSnapshot: Hashable, Sendable, Codable {
        /// The board.
        public var board: BoardID
        /// The sessions present, the receiver's own included.
        public var sessions: [PresenceEntry]

        /// Makes the message.
        public init(board: BoardID, sessions: [PresenceEntry]) {
            self.board = board
            self.sessions = sessions
        }
    }

    /// `presence`: one session joined the board or changed what it is doing.
    public struct Presence: Hashable, Sendable, Codable {
        /// The board.
        public var board: BoardID
        /// The session's new presence.
        public var entry: PresenceEntry

        /// Makes the message.
        public init(board: BoardID, entry: PresenceEntry) {
            self.board = board
            self.entry = entry
        }

        enum CodingKeys: String, CodingKey {
            case board
        }

        /// Decodes `board` and the entry's fields from the same flat object.
        public init(from decoder: any Decoder) throws {
            board = try decoder.container(keyedBy: CodingKeys.self).decode(BoardID.self, forKey: .board)
            entry = try PresenceEntry(from: decoder)
        }

        /// Encodes `board` and the entry's fields into one flat object.
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(board, forKey: .board)
            try entry.encode(to: encoder)
        }
    }

    /// `presence.left`: a session left the board: unsubscribed, disconnected, or silent past `presence_timeout_ms`.
    public struct PresenceLeft: Hashable, Sendable, Codable {
        /// The board.
        public var board: BoardID
        /// The session that left.
        public var session: SessionID
        /// Its user.
        public var user: UserID

        /// Makes the message.
        public init(board: BoardID, session: SessionID, user: UserID) {
            self.board = board
            self.session = session
            self.user = user
        }
    }
}
