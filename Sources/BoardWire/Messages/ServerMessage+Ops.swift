import BoardCore

extension ServerMessage {
    /// `delta`: one committed change of a board, broadcast in seq order to every subscriber, the sender included.
    public struct Delta: Hashable, Sendable, Codable {
        /// The board.
        public var board: BoardID
        /// The change's seq: exactly one more than the previous delta's.
        public var seq: UInt64
        /// When the server applied it (the reducer's `now`).
        public var at: Timestamp
        /// Who made it (the reducer's actor).
        public var actor: UserID
        /// The client that sent the op, when it came from a client.
        public var clientID: ClientID?
        /// That client's mutation id.
        public var mut: UInt64?
        /// The op as applied (for an undo, the inverse op); replicas apply it with the pure reducer.
        public var op: Op
        /// The change's activity record, without `names` (its receivers hold the board of that moment; the stored
        /// record and `history` replies carry them).
        public var activity: Activity

        /// Makes a delta.
        public init(
            board: BoardID, seq: UInt64, at: Timestamp, actor: UserID, clientID: ClientID? = nil, mut: UInt64? = nil,
            op: Op, activity: Activity
        ) {
            self.board = board
            self.seq = seq
            self.at = at
            self.actor = actor
            self.clientID = clientID
            self.mut = mut
            self.op = op
            var activity = activity
            activity.names = nil
            self.activity = activity
        }

        enum CodingKeys: String, CodingKey {
            case board, seq, at, actor
            case clientID = "client_id"
            case mut, op, activity
        }
    }

    /// `ack`: the op with this `mut` is durable at `seq` (or, with `noop`, changed nothing).
    public struct Ack: Hashable, Sendable, Codable {
        /// The board.
        public var board: BoardID
        /// The acknowledged mutation id.
        public var mut: UInt64
        /// The change's seq; for a no-op, the board's seq when it was evaluated.
        public var seq: UInt64
        /// The op changed nothing, so no delta follows (sent only when true).
        public var noop: Bool

        /// Makes an ack.
        public init(board: BoardID, mut: UInt64, seq: UInt64, noop: Bool = false) {
            self.board = board
            self.mut = mut
            self.seq = seq
            self.noop = noop
        }

        enum CodingKeys: String, CodingKey {
            case board, mut, seq, noop
        }

        /// Decodes the fields (`noop` absent means false).
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            board = try c.decode(BoardID.self, forKey: .board)
            mut = try c.decode(UInt64.self, forKey: .mut)
            seq = try c.decode(UInt64.self, forKey: .seq)
            noop = try c.decodeIfPresent(Bool.self, forKey: .noop) ?? false
        }

        /// Encodes the fields (`noop` only when true).
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(board, forKey: .board)
            try c.encode(mut, forKey: .mut)
            try c.encode(seq, forKey: .seq)
            if noop { try c.encode(true, forKey: .noop) }
        }
    }

    /// `reject`: the op with this `mut` was refused; nothing changed.
    public struct Reject: Hashable, Sendable, Codable {
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

        /// Makes a reject.
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

        /// The reject for a reducer `Rejection`.
        public init(board: BoardID, mut: UInt64, rejection: Rejection) {
            self.init(
                board: board, mut: mut, code: .rejected(rejection.code), message: rejection.message,
                current: rejection.current)
        }

        enum CodingKeys: String, CodingKey {
            case board, mut, code, message, current
            case retryAfterMs = "retry_after_ms"
        }
    }
}
