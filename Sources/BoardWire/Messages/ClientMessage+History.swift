import BoardCore

extension ClientMessage {
    /// `history`: a page of a board's (or one card's) activity records, newest page first.
    public struct History: Hashable, Sendable, Codable {
        /// Echoed in the reply.
        public var req: RequestID?
        /// The board.
        public var board: BoardID
        /// Only records about this card.
        public var card: CardID?
        /// Only records with a seq below this (default: all); pass the oldest seq of the previous page.
        public var before: UInt64?
        /// Most records wanted (default 50, clamped to `history_page_max`).
        public var limit: Int?

        /// The page size when `limit` is absent.
        public static let defaultLimit = 50

        /// Makes the request.
        public init(
            req: RequestID? = nil, board: BoardID, card: CardID? = nil, before: UInt64? = nil, limit: Int? = nil
        ) {
            self.req = req
            self.board = board
            self.card = card
            self.before = before
            self.limit = limit
        }
    }
}
