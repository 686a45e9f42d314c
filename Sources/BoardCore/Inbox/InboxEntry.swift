/// One entry of a user's inbox: something on a board that concerns them, kept by the server for all their clients
/// and read once on any of them.
public struct InboxEntry: Hashable, Sendable, Codable {
    /// Why the user is told: one of the kinds below, or one a newer server added (a client shows its `text`).
    public struct Kind: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// `@user` in a comment, a chat line or a card's description.
        public static let mention = Kind(rawValue: "mention")
        /// They were assigned to the card.
        public static let assigned = Kind(rawValue: "assigned")
        /// A comment on a card they watch (created or are assigned to).
        public static let comment = Kind(rawValue: "comment")
        /// A card they watch moved to another column.
        public static let moved = Kind(rawValue: "moved")
        /// A card they watch no longer waits for another (its last pending blocker is done).
        public static let unblocked = Kind(rawValue: "unblocked")
        /// A card they watch is due within the reminder lead time (default 24 h).
        public static let dueSoon = Kind(rawValue: "due_soon")
        /// A card they watch is past its due day and still open.
        public static let overdue = Kind(rawValue: "overdue")
        /// The kinds this version derives.
        public static let known: [Kind] = [.mention, .assigned, .comment, .moved, .unblocked, .dueSoon, .overdue]
    }

    /// The entry's number: unique in the store, growing, so `before` pages back through an inbox.
    public var id: Int64
    /// Whom it is for.
    public var user: UserID
    /// The board.
    public var board: BoardID
    /// The change that caused it.
    public var seq: UInt64
    /// The card it is about (none for a chat mention).
    public var card: CardID?
    public var kind: Kind
    /// Who made the change.
    public var actor: UserID
    /// When the change was made.
    public var at: Timestamp
    /// What happened, in one line: the comment or chat text, `moved #3 "Ship it" TODO → DOING`, ….
    public var text: String
    /// Whether the user has read it (on any client).
    public var read: Bool
    /// What makes the entry unique in the store (not sent on the wire): by default the user, change, kind and card,
    /// so deriving entries again (after a restart, on another node) never doubles one; a reminder's is its card and
    /// due day instead, so it is sent once per threshold whatever the board's seq.
    public var key: String

    /// Makes an entry.
    public init(
        id: Int64 = 0, user: UserID, board: BoardID, seq: UInt64, card: CardID?, kind: Kind, actor: UserID,
        at: Timestamp, text: String, read: Bool = false, key: String? = nil
    ) {
        self.id = id
        self.user = user
        self.board = board
        self.seq = seq
        self.card = card
        self.kind = kind
        self.actor = actor
        self.at = at
        self.text = text
        self.read = read
        self.key = key ?? "\(user)|\(board)|\(seq)|\(kind.rawValue)|\(card?.rawValue ?? "")"
    }

    enum CodingKeys: String, CodingKey {
        case id, user, board, seq, card, kind, actor, at, text, read
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try c.decode(Int64.self, forKey: .id), user: try c.decode(UserID.self, forKey: .user),
            board: try c.decode(BoardID.self, forKey: .board), seq: try c.decode(UInt64.self, forKey: .seq),
            card: try c.decodeIfPresent(CardID.self, forKey: .card), kind: try c.decode(Kind.self, forKey: .kind),
            actor: try c.decode(UserID.self, forKey: .actor), at: try c.decode(Timestamp.self, forKey: .at),
            text: try c.decode(String.self, forKey: .text), read: try c.decode(Bool.self, forKey: .read))
    }
}
