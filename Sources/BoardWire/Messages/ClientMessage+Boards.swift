import BoardCore

extension ClientMessage {
    /// `boards`: list the boards the user is a member of.
    public struct ListBoards: Hashable, Sendable, Codable {
        /// Echoed in the reply.
        public var req: RequestID?

        /// Makes the request.
        public init(req: RequestID? = nil) { self.req = req }
    }

    /// `board.create`: create a board with the default columns; the user becomes its owner.
    public struct CreateBoard: Hashable, Sendable, Codable {
        /// Echoed in the reply.
        public var req: RequestID?
        /// The new board's id (must be unused on the server).
        public var board: BoardID
        /// The board's display name.
        public var name: String

        /// Makes the request.
        public init(req: RequestID? = nil, board: BoardID, name: String) {
            self.req = req
            self.board = board
            self.name = name
        }
    }
}
