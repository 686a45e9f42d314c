import BoardCore

extension ServerMessage {
    /// `boards`: the boards the user is a member of.
    public struct BoardList: Hashable, Sendable, Codable {
        /// The `boards` request's id.
        public var req: RequestID?
        /// The boards, sorted by id.
        public var boards: [BoardSummary]

        /// Makes the reply.
        public init(req: RequestID? = nil, boards: [BoardSummary]) {
            self.req = req
            self.boards = boards
        }
    }

    /// One board in a `boards` reply.
    public struct BoardSummary: Hashable, Sendable, Codable {
        /// The board's id.
        public var board: BoardID
        /// The board's display name.
        public var name: String
        /// The user's role on it.
        public var role: Role
        /// The board's current seq.
        public var seq: UInt64

        /// Makes a summary.
        public init(board: BoardID, name: String, role: Role, seq: UInt64) {
            self.board = board
            self.name = name
            self.role = role
            self.seq = seq
        }
    }

    /// `ok`: the request succeeded and has no other output.
    public struct Ok: Hashable, Sendable, Codable {
        /// The request's id.
        public var req: RequestID?
        /// The board the request was about.
        public var board: BoardID?
        /// `hook.add`, `hook.remove`, `hook.test`: the hook the request was about.
        public var hook: String?
        /// `hook.add` without a `secret`: the secret the server made, shown this once.
        public var secret: String?
        /// `hook.test`: whether the receiver answered the test delivery with a 2xx status.
        public var delivered: Bool?
        /// `hook.test`: the receiver's HTTP status, when it answered.
        public var status: Int?
        /// `hook.test`: why the test delivery failed, when it did.
        public var detail: String?

        /// Makes the reply.
        public init(
            req: RequestID? = nil, board: BoardID? = nil, hook: String? = nil, secret: String? = nil,
            delivered: Bool? = nil, status: Int? = nil, detail: String? = nil
        ) {
            self.req = req
            self.board = board
            self.hook = hook
            self.secret = secret
            self.delivered = delivered
            self.status = status
            self.detail = detail
        }
    }
}
