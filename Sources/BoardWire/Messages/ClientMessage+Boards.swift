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

    /// `board.archive`: the board's owner archives it. Its data is kept; it stops being served on every node (its
    /// subscribers get `not_found`) until the operator brings it back with `corkd board unarchive`.
    public struct ArchiveBoard: Hashable, Sendable, Codable {
        /// Echoed in the reply.
        public var req: RequestID?
        /// The board to archive.
        public var board: BoardID

        /// Makes the request.
        public init(req: RequestID? = nil, board: BoardID) {
            self.req = req
            self.board = board
        }
    }
}
