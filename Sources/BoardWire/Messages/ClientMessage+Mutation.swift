import BoardCore

extension ClientMessage {
    /// `op`: apply one op (or an undo) to a board, exactly once per `(user, client_id, mut)`.
    public struct Mutation: Hashable, Sendable, Codable {
        /// The board.
        public var board: BoardID
        /// The client's mutation counter, strictly increasing per client id.
        public var mut: UInt64
        /// What to change.
        public var op: OpRequest

        /// Makes the request.
        public init(board: BoardID, mut: UInt64, op: OpRequest) {
            self.board = board
            self.mut = mut
            self.op = op
        }
    }
}
