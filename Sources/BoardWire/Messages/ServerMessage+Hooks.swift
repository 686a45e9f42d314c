import BoardCore

extension ServerMessage {
    /// `hooks`: a board's webhooks, the answer to `hook.list`.
    public struct HookList: Hashable, Sendable, Codable {
        /// The request's id.
        public var req: RequestID?
        /// The board.
        public var board: BoardID
        /// Its hooks, in the order they were added.
        public var hooks: [HookEntry]

        /// Makes the reply.
        public init(req: RequestID? = nil, board: BoardID, hooks: [HookEntry]) {
            self.req = req
            self.board = board
            self.hooks = hooks
        }
    }

    /// One webhook in a `hooks` reply; its secret is never listed.
    public struct HookEntry: Hashable, Sendable, Codable {
        /// The hook's id.
        public var hook: String
        /// Where it POSTs.
        public var url: String
        /// Its event filter.
        public var events: [String]
        /// Its card query, as given to `hook.add`; absent when it has none.
        public var query: String?
        /// Who added it.
        public var createdBy: UserID
        /// When it was added (milliseconds since 1970).
        public var createdAt: Int64
        /// The highest seq delivered or skipped: changes after it are queued.
        public var deliveredSeq: UInt64
        /// Failed attempts in a row (0 after a success).
        public var failures: Int
        /// Whether it kept failing for the whole retry window; its changes stay queued.
        public var failing: Bool
        /// Why the last attempt failed; absent after a success.
        public var lastError: String?
        /// When the last attempt was made; absent before the first.
        public var lastAttemptAt: Int64?

        /// Makes an entry.
        public init(
            hook: String, url: String, events: [String], query: String? = nil, createdBy: UserID, createdAt: Int64,
            deliveredSeq: UInt64, failures: Int = 0, failing: Bool = false, lastError: String? = nil,
            lastAttemptAt: Int64? = nil
        ) {
            self.hook = hook
            self.url = url
            self.events = events
            self.query = query
            self.createdBy = createdBy
            self.createdAt = createdAt
            self.deliveredSeq = deliveredSeq
            self.failures = failures
            self.failing = failing
            self.lastError = lastError
            self.lastAttemptAt = lastAttemptAt
        }

        enum CodingKeys: String, CodingKey {
            case hook, url, events, query
            case createdBy = "created_by"
            case createdAt = "created_at"
            case deliveredSeq = "delivered_seq"
            case failures, failing
            case lastError = "last_error"
            case lastAttemptAt = "last_attempt_at"
        }
    }
}
