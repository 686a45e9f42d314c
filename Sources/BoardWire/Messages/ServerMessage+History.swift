import BoardCore

extension ServerMessage {
    /// `history`: one page of activity records, oldest first within the page.
    public struct HistoryPage: Hashable, Sendable, Codable {
        /// The `history` request's id.
        public var req: RequestID?
        /// The board.
        public var board: BoardID
        /// The records, ascending by seq; the next older page is `before` the first one's seq.
        public var activities: [Activity]
        /// Whether older records exist.
        public var more: Bool

        /// Makes the reply.
        public init(req: RequestID? = nil, board: BoardID, activities: [Activity], more: Bool) {
            self.req = req
            self.board = board
            self.activities = activities
            self.more = more
        }
    }
}
