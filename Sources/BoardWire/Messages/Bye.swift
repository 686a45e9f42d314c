/// The payload of `bye`: the sender is about to close the connection cleanly.
///
/// The server sends it before shutting down (`reason` `shutdown` or `restart`, with `retry_after_ms` as a hint
/// for when to reconnect); a client may send it to leave cleanly.
public struct Bye: Hashable, Sendable, Codable {
    /// Why: `shutdown`, `restart`, `maintenance` or `client` (a client's own choice of words is allowed too).
    public var reason: String?
    /// When reconnecting makes sense again.
    public var retryAfterMs: UInt64?

    /// Makes a bye.
    public init(reason: String? = nil, retryAfterMs: UInt64? = nil) {
        self.reason = reason
        self.retryAfterMs = retryAfterMs
    }

    enum CodingKeys: String, CodingKey {
        case reason
        case retryAfterMs = "retry_after_ms"
    }
}
