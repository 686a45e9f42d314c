import BoardCore

/// An outgoing webhook of a board, as the store keeps it: where to POST, which changes, the signing secret, and where
/// its delivery stands (Protocol.md, "Hooks").
public struct HookRecord: Hashable, Sendable {
    /// The hook's id (1–64 of `[A-Za-z0-9_.-]`, chosen by the server).
    public var id: String
    /// The board whose committed changes it is told of.
    public var board: BoardID
    /// The URL the changes are POSTed to.
    public var url: String
    /// The event filter: op kinds (`comment.add`), families (`card.*`) or `*`.
    public var events: [String]
    /// The card query (the board's search language, `label:incident`) a change's card must match as well, as the
    /// owner wrote it; nil: every change `events` passes.
    public var query: String?
    /// The HMAC-SHA256 key of `X-Corkboard-Signature`. Never sent to a client after `hook.add`.
    public var secret: String
    /// Who added it.
    public var createdBy: UserID
    /// When it was added.
    public var createdAt: Timestamp
    /// Where its delivery stands.
    public var state: HookState

    /// Makes a record.
    public init(
        id: String, board: BoardID, url: String, events: [String], query: String? = nil, secret: String,
        createdBy: UserID, createdAt: Timestamp, state: HookState
    ) {
        self.id = id
        self.board = board
        self.url = url
        self.events = events
        self.query = query
        self.secret = secret
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.state = state
    }
}

/// Where a hook's delivery stands: the durable queue is the board's event log read from `delivered` + 1 on.
public struct HookState: Hashable, Sendable {
    /// The highest seq that was delivered or skipped (not matching the events or the query): the queue's cursor.
    public var delivered: UInt64
    /// Failed attempts in a row (0 after a success).
    public var failures: Int
    /// When the current run of failures began; nil while deliveries succeed.
    public var failingSince: Timestamp?
    /// Whether the hook kept failing for the whole retry window; later changes stay queued until it recovers.
    public var failing: Bool
    /// Why the last attempt failed; nil after a success.
    public var lastError: String?
    /// When the last attempt was made.
    public var lastAttemptAt: Timestamp?

    /// Makes a state; a new hook starts at the board's head with no failures.
    public init(
        delivered: UInt64, failures: Int = 0, failingSince: Timestamp? = nil, failing: Bool = false,
        lastError: String? = nil, lastAttemptAt: Timestamp? = nil
    ) {
        self.delivered = delivered
        self.failures = failures
        self.failingSince = failingSince
        self.failing = failing
        self.lastError = lastError
        self.lastAttemptAt = lastAttemptAt
    }
}

/// The outgoing webhooks of boards, kept by the SQLite and the PostgreSQL store alike.
public protocol HookStore: Sendable {
    /// Stores a new hook unless its board has `maxPerBoard` hooks already (then false); `.duplicate` when the id is
    /// taken, `.notFound` when the board does not exist.
    func addHook(_ hook: HookRecord, maxPerBoard: Int) async throws(StoreError) -> Bool

    /// The hooks of `board` (every board's when nil), by board, then by when they were added.
    func hooks(board: BoardID?) async throws(StoreError) -> [HookRecord]

    /// Removes a hook of `board`; false when it has no such hook.
    func removeHook(_ id: String, board: BoardID) async throws(StoreError) -> Bool

    /// Records where a hook's delivery stands; nothing when the hook was removed meanwhile.
    func updateHook(_ id: String, state: HookState) async throws(StoreError)
}
