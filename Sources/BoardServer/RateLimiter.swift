import BoardCore

/// A token bucket: `rate` tokens a second, at most `burst` saved up.
struct TokenBucket: Sendable {
    let rate: Double
    let burst: Double
    private(set) var tokens: Double
    private(set) var updatedMs: Int64

    init(rate: Int, burst: Int, nowMs: Int64) {
        self.rate = Double(max(1, rate))
        self.burst = Double(max(1, burst))
        self.tokens = Double(max(1, burst))
        self.updatedMs = nowMs
    }

    /// Takes a token: nil when one was available, otherwise how many milliseconds until one is.
    mutating func take(nowMs: Int64) -> UInt64? {
        let elapsed = Double(max(0, nowMs - updatedMs)) / 1000
        tokens = min(burst, tokens + elapsed * rate)
        updatedMs = max(updatedMs, nowMs)
        if tokens >= 1 {
            tokens -= 1
            return nil
        }
        return UInt64(((1 - tokens) / rate * 1000).rounded(.up))
    }
}

/// The per-user op rate limit shared by all of a user's sessions (`rate_ops_per_s`, `rate_burst`).
actor RateLimiter {
    private var buckets: [UserID: TokenBucket] = [:]
    let rate: Int
    let burst: Int

    init(rate: Int, burst: Int) {
        self.rate = rate
        self.burst = burst
    }

    /// nil when the user may go ahead, else the wait in milliseconds.
    func take(_ user: UserID, nowMs: Int64) -> UInt64? {
        var bucket = buckets[user] ?? TokenBucket(rate: rate, burst: burst, nowMs: nowMs)
        let wait = bucket.take(nowMs: nowMs)
        buckets[user] = bucket
        return wait
    }
}
