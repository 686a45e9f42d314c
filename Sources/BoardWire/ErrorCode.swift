/// The closed set of wire error codes sent in `error` lines (Protocol.md, "Errors").
///
/// Each code says whether the server closes the connection after sending it and whether the condition is
/// temporary (`retryable`: the same request, or a reconnect, may succeed later without changing anything).
public enum ErrorCode: String, Hashable, Sendable, Codable, CaseIterable, CustomStringConvertible {
    // Closes the connection.
    /// A line passed `line_max` (or `preauth_line_max` before `welcome`).
    case lineTooLong = "line_too_long"
    /// A line was not completed within `line_timeout_ms` of its first byte.
    case lineTimeout = "line_timeout"
    /// A message other than `hello`, `ping`, `pong` or `bye` before `welcome`, or no `hello` within `auth_timeout_ms`.
    case unauthenticated
    /// The token in `hello` is unknown or wrong.
    case authFailed = "auth_failed"
    /// The token has expired; reconnect with a fresh one.
    case tokenExpired = "token_expired"
    /// The token was revoked or the user removed; do not reconnect with it.
    case tokenRevoked = "token_revoked"
    /// A connection cap was reached (`connections_max`, `connections_per_user`, `preauth_per_ip`).
    case serverFull = "server_full"
    /// The outbox passed `outbox_bytes` or a write missed `write_timeout_ms`; reconnect and resume by seq.
    case slowConsumer = "slow_consumer"
    /// More than `error_budget` bad lines within `error_window_ms`, or sustained rate limiting.
    case tooManyErrors = "too_many_errors"

    // Keeps the connection open.
    /// The line is not a JSON object.
    case badJSON = "bad_json"
    /// The line is not valid UTF-8.
    case invalidUTF8 = "invalid_utf8"
    /// The JSON nests deeper than `json_depth`.
    case depthExceeded = "depth_exceeded"
    /// An object has the same key twice.
    case duplicateKey = "duplicate_key"
    /// A field is missing, has the wrong type or is out of range (floats included).
    case badRequest = "bad_request"
    /// `type` names no message this side accepts.
    case unknownType = "unknown_type"
    /// An op's `kind` names no op.
    case unknownOp = "unknown_op"
    /// The board does not exist or the user is not a member (the two look the same).
    case notFound = "not_found"
    /// The user's role does not allow the request.
    case forbidden
    /// Too many requests; wait `retry_after_ms`.
    case rateLimited = "rate_limited"
    /// The server dropped a subscription because the board's log changed lineage; subscribe again.
    case resyncRequired = "resync_required"
    /// The store is out of space; nothing was written.
    case storageFull = "storage_full"
    /// The store is locked or overloaded; nothing was written.
    case storageBusy = "storage_busy"
    /// An unexpected server fault; nothing was written.
    case `internal`
    /// The server does not speak the `hello`'s version; `versions` lists those it does.
    case unsupportedVersion = "unsupported_version"

    /// Whether the server closes the connection right after sending this code.
    public var closesConnection: Bool {
        switch self {
        case .lineTooLong, .lineTimeout, .unauthenticated, .authFailed, .tokenExpired, .tokenRevoked, .serverFull,
            .slowConsumer, .tooManyErrors:
            true
        default: false
        }
    }

    /// Whether the condition is temporary: the same request (or, for a closing code, a reconnect) may succeed later.
    public var retryable: Bool {
        switch self {
        case .lineTimeout, .serverFull, .slowConsumer, .rateLimited, .resyncRequired, .storageFull, .storageBusy,
            .internal:
            true
        default: false
        }
    }

    /// The code's wire name.
    public var description: String { rawValue }
}
