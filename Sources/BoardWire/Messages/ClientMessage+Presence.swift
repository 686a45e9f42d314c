import BoardCore

extension ClientMessage {
    /// `presence`: what the user is doing on a subscribed board; ephemeral, never persisted, not answered.
    ///
    /// Each one refreshes the session's presence, which otherwise expires after `presence_timeout_ms`.
    public struct Presence: Hashable, Sendable, Codable {
        /// The board (the session must be subscribed to it).
        public var board: BoardID
        /// What the user is doing.
        public var state: PresenceActivity
        /// The card viewed, edited or dragged.
        public var card: CardID?
        /// While dragging: the column the card hovers over.
        public var column: ColumnID?
        /// While dragging: the index in `column` the card hovers at.
        public var index: Int?
        /// Whether the person has been away from the keyboard for a while (the client decides when).
        public var away: Bool?
        /// What the person says about being away (`lunch, back at 2`): one line, at most
        /// ``awayNoteMaxCharacters``; kept with `away` only.
        public var awayNote: String?

        /// The longest away note, in characters.
        public static let awayNoteMaxCharacters = 80

        enum CodingKeys: String, CodingKey {
            case board, state, card, column, index, away
            case awayNote = "away_note"
        }

        /// Makes a presence update.
        public init(
            board: BoardID, state: PresenceActivity, card: CardID? = nil, column: ColumnID? = nil, index: Int? = nil,
            away: Bool? = nil, awayNote: String? = nil
        ) {
            self.board = board
            self.state = state
            self.card = card
            self.column = column
            self.index = index
            self.away = away
            self.awayNote = awayNote
        }
    }
}
