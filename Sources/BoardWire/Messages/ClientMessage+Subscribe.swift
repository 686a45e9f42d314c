import BoardCore

extension ClientMessage {
    /// `subscribe`: start receiving a board's deltas and presence, resuming after `since` when given.
    public struct Subscribe: Hashable, Sendable, Codable {
        /// Echoed in `snapshot` and `subscribed`.
        public var req: RequestID?
        /// The board.
        public var board: BoardID
        /// The last seq the client has applied; the server sends the deltas after it (or a snapshot).
        public var since: UInt64?
        /// The epoch `since` belongs to; required with `since`.
        public var epoch: String?
        /// `false`: follow the board without being present (no join or leave for the others; for one-shot commands).
        /// Absent means `true`.
        public var presence: Bool?

        /// Makes the request.
        public init(
            req: RequestID? = nil, board: BoardID, since: UInt64? = nil, epoch: String? = nil, presence: Bool? = nil
        ) {
            self.req = req
            self.board = board
            self.since = since
            self.epoch = epoch
            self.presence = presence
        }

        enum CodingKeys: String, CodingKey {
            case req, board, since, epoch, presence
        }

        /// Decodes the fields; `since` without `epoch` is an error.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            req = try c.decodeIfPresent(RequestID.self, forKey: .req)
            board = try c.decode(BoardID.self, forKey: .board)
            since = try c.decodeIfPresent(UInt64.self, forKey: .since)
            epoch = try c.decodeIfPresent(String.self, forKey: .epoch)
            presence = try c.decodeIfPresent(Bool.self, forKey: .presence)
            if since != nil, epoch == nil {
                throw DecodingError.keyNotFound(
                    CodingKeys.epoch, .init(codingPath: c.codingPath, debugDescription: "epoch is required with since"))
            }
        }
    }

    /// `unsubscribe`: stop receiving a board's deltas and presence.
    public struct Unsubscribe: Hashable, Sendable, Codable {
        /// Echoed in `ok`.
        public var req: RequestID?
        /// The board.
        public var board: BoardID

        /// Makes the request.
        public init(req: RequestID? = nil, board: BoardID) {
            self.req = req
            self.board = board
        }
    }

    /// `fetch`: send the deltas `from...to` again (after a gap); ends with `ok`.
    public struct Fetch: Hashable, Sendable, Codable {
        /// Echoed in the deltas' closing `ok` (and a snapshot, if one is sent instead).
        public var req: RequestID?
        /// The board (the session must be subscribed to it).
        public var board: BoardID
        /// The first seq wanted (at least 1).
        public var from: UInt64
        /// The last seq wanted (at least `from`, at most the board's seq).
        public var to: UInt64

        /// Makes the request.
        public init(req: RequestID? = nil, board: BoardID, from: UInt64, to: UInt64) {
            self.req = req
            self.board = board
            self.from = from
            self.to = to
        }

        enum CodingKeys: String, CodingKey {
            case req, board, from, to
        }

        /// Decodes the fields; an empty or reversed range is an error.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            req = try c.decodeIfPresent(RequestID.self, forKey: .req)
            board = try c.decode(BoardID.self, forKey: .board)
            from = try c.decode(UInt64.self, forKey: .from)
            to = try c.decode(UInt64.self, forKey: .to)
            guard from >= 1, from <= to else {
                throw DecodingError.dataCorruptedError(
                    forKey: .to, in: c, debugDescription: "expected 1 <= from <= to")
            }
        }
    }
}
