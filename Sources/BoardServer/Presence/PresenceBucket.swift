import BoardCore
import Synchronization

/// A session's presence rate (`presence_rate_per_s`), shared by the session, which takes a token for each update it
/// receives, and the board, which takes one for a held drag position when it sends it: together they forward at
/// most the rate (Protocol.md, "presence").
final class PresenceBucket: Sendable {
    private let bucket: Mutex<TokenBucket>

    /// A full bucket: `rate` a second, a burst of as many.
    init(rate: Int, nowMs: Int64) {
        bucket = Mutex(TokenBucket(rate: rate, burst: rate, nowMs: nowMs))
    }

    /// Takes a token: nil when there was one, otherwise the milliseconds until there is.
    func take(nowMs: Int64) -> UInt64? {
        bucket.withLock { $0.take(nowMs: nowMs) }
    }
}
