import BoardCore

extension ClientMessage {
    /// `hook.add`: the board's owner adds an outgoing webhook; answered by `ok` with the hook's id (and the secret,
    /// when the server made it).
    public struct AddHook: Hashable, Sendable, Codable {
        /// Echoed in the reply.
        public var req: RequestID?
        /// The board whose changes the hook is told of.
        public var board: BoardID
        /// Where to POST: `https://…` (plain `http://` only to loopback, when the operator allows it).
        public var url: String
        /// The event filter: op kinds (`comment.add`), families (`card.*`) or `*`.
        public var events: [String]
        /// A card query in the board's search language (`label:incident`): only changes about a card that matches it
        /// (on the board as it is at delivery) are sent; absent: every change `events` passes. Feature `hook_query`.
        public var query: String?
        /// The signing secret; absent: the server makes one and returns it once.
        public var secret: String?

        /// Makes the request.
        public init(
            req: RequestID? = nil, board: BoardID, url: String, events: [String], query: String? = nil, secret: String? = nil
        ) {
            self.req = req
            self.board = board
            self.url = url
            self.events = events
            self.query = query
            self.secret = secret
        }
    }

    /// `hook.list`: the board's webhooks and where their deliveries stand; answered by `hooks`.
    public struct ListHooks: Hashable, Sendable, Codable {
        /// Echoed in the reply.
        public var req: RequestID?
        /// The board.
        public var board: BoardID

        /// Makes the request.
        public init(req: RequestID? = nil, board: BoardID) {
            self.req = req
            self.board = board
        }
    }

    /// `hook.remove` and `hook.test`: one webhook of a board, by id; answered by `ok`.
    public struct HookRequest: Hashable, Sendable, Codable {
        /// Echoed in the reply.
        public var req: RequestID?
        /// The board.
        public var board: BoardID
        /// The hook's id (from `hook.add` or `hooks`).
        public var hook: String

        /// Makes the request.
        public init(req: RequestID? = nil, board: BoardID, hook: String) {
            self.req = req
            self.board = board
            self.hook = hook
        }
    }
}
