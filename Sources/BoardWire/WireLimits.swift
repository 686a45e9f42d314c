import BoardCore

/// Every bound the protocol enforces, with its default; advertised to the client in `welcome.limits`.
///
/// Each field's wire name (its key in `welcome.limits`), default, unit and error code are listed in Protocol.md,
/// "Limits". Sizes are bytes unless a name says otherwise; durations are milliseconds.
public struct WireLimits: Hashable, Sendable {
    // Framing and JSON
    /// Longest inbound line after `welcome` (`line_too_long`, then close).
    public var lineMax = 64 * 1024
    /// Longest inbound line before `welcome` (`line_too_long`, then close).
    public var preauthLineMax = 4 * 1024
    /// Longest line the server sends (snapshots); clients must accept lines this long.
    public var serverLineMax = 64 * 1024 * 1024
    /// Time allowed from a line's first byte to its newline (`line_timeout`, then close).
    public var lineTimeoutMs = 30_000
    /// Deepest JSON nesting; the line object itself is depth 1 (`depth_exceeded`).
    public var jsonDepth = 16
    /// Most keys in one JSON object (`bad_request`).
    public var jsonKeys = 256
    /// Longest JSON string, in UTF-8 bytes after unescaping (`bad_request`).
    public var stringMax = 16 * 1024

    // Output
    /// Largest outbox (bytes queued for one connection) before `slow_consumer`, then close.
    public var outboxBytes = 1024 * 1024
    /// Longest a queued write may wait for the peer before `slow_consumer`, then close.
    public var writeTimeoutMs = 10_000
    /// Most bytes queued for a connection before `welcome` (then `slow_consumer` and close).
    public var preauthOutputBytes = 64 * 1024

    // Rates and error budget
    /// Sustained `op` rate per user on each board (token bucket refill per second; `reject` `rate_limited`). Only
    /// `op` lines draw on the bucket (Protocol.md, "Rate limit").
    public var rateOpsPerS = 20
    /// Token bucket size: ops a user may send to one board in a burst (`reject` `rate_limited`).
    public var rateBurst = 40
    /// A connection rate limited without a break (less than a second between `rate_limited` rejects, accepted ops
    /// in between notwithstanding) for this long is closed (`too_many_errors`).
    public var rateCloseMs = 10_000
    /// Bad lines allowed within `error_window_ms` before `too_many_errors`, then close.
    public var errorBudget = 20
    /// The window the error budget counts over.
    public var errorWindowMs = 60_000

    // Connections
    /// Most connections the server holds (`server_full`, then close).
    public var connectionsMax = 20_000
    /// Most authenticated connections per user (`server_full`, then close).
    public var connectionsPerUser = 20
    /// Most unauthenticated connections per source IP address (`server_full`, then close).
    public var preauthPerIP = 100

    // Time
    /// Interval of the server's `ping`; a connection from which no line has arrived for two intervals is closed.
    public var heartbeatMs = 30_000
    /// Time allowed for the TLS handshake (the connection is closed; no line can be sent).
    public var handshakeTimeoutMs = 5_000
    /// Time allowed from the end of the TLS handshake to `hello` (`unauthenticated`, then close).
    public var authTimeoutMs = 5_000

    // History, fetch and presence
    /// Most deltas a board retains for resume and `fetch`; older `since` gets a snapshot.
    public var historyMax = 10_000
    /// Oldest delta a board retains for resume and `fetch`; older `since` gets a snapshot.
    public var historyAgeMs = 86_400_000
    /// Most bytes of delta lines a board retains for resume and `fetch` (16 MiB); older `since` gets a snapshot.
    public var historyBytes = 16_777_216
    /// Most activity records in one `history` reply (a larger `limit` is clamped).
    public var historyPageMax = 500
    /// Most deltas one `fetch` may ask for (`bad_request`).
    public var fetchMax = 1_000
    /// An `editing` or `dragging` presence not refreshed for this long falls back to `viewing` (presence itself lasts
    /// as long as the subscription).
    public var presenceTimeoutMs = 60_000
    /// Most `presence` broadcasts per session per second; faster updates are coalesced (latest wins).
    public var presenceRatePerS = 10

    // Content (enforced by the reducer, BoardCore `Limits`; op rejected with `too_large` or `invalid`)
    /// Longest identifier, in bytes.
    public var idMax = Limits.idMaxLength
    /// Longest card title, in characters.
    public var titleMax = Limits.titleMaxCharacters
    /// Longest card description, in UTF-8 bytes.
    public var descriptionMaxBytes = Limits.descriptionMaxBytes
    /// Longest label name, in characters.
    public var labelNameMax = Limits.labelNameMaxCharacters
    /// Longest column name, in characters.
    public var columnNameMax = Limits.columnNameMaxCharacters
    /// Longest board name, in characters.
    public var boardNameMax = Limits.boardNameMaxCharacters
    /// Longest milestone title, in characters.
    public var milestoneTitleMax = Limits.milestoneTitleMaxCharacters
    /// Longest member display name, in characters.
    public var memberNameMax = Limits.memberNameMaxCharacters
    /// Longest comment, in UTF-8 bytes.
    public var commentMaxBytes = Limits.commentMaxBytes
    /// Longest chat message, in UTF-8 bytes.
    public var chatMaxBytes = Limits.chatMaxBytes
    /// Longest checklist item text, in characters.
    public var checklistTextMax = Limits.checklistTextMaxCharacters
    /// Longest external reference, in characters.
    public var refMax = Limits.refMaxCharacters
    /// Most columns on a board.
    public var columnsMax = Limits.columnsMax
    /// Most cards on a board, archived ones included.
    public var cardsMax = Limits.cardsMax
    /// Most labels on a board.
    public var labelsMax = Limits.labelsMax
    /// Most milestones on a board.
    public var milestonesMax = Limits.milestonesMax
    /// Most members of a board (`corkd --members-max`, at most `Limits.membersMax`).
    public var membersMax = Limits.membersDefault
    /// Most labels on one card.
    public var labelsPerCardMax = Limits.labelsPerCardMax
    /// Most assignees of one card.
    public var assigneesPerCardMax = Limits.assigneesPerCardMax
    /// Most checklist items on one card.
    public var checklistItemsMax = Limits.checklistItemsMax
    /// Most comments on one card.
    public var commentsPerCardMax = Limits.commentsPerCardMax
    /// Largest column WIP limit.
    public var wipLimitMax = Limits.wipLimitMax

    /// The defaults.
    public init() {}

    /// The limits with their defaults.
    public static let defaults = WireLimits()
}
