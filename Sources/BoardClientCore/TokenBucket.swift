/// Client-side pacing of ops to the server's advertised rate, so a burst queues locally instead of being
/// rejected with `rate_limited`. Time is passed in (seconds on any monotonic clock), so it is pure.
package struct TokenBucket: Sendable {
    /// Tokens per second.
    package var rate: Double
    /// Most tokens held.
    package var burst: Double
    private var tokens: Double
    private var last: Double?

    /// A bucket holding `initial` tokens (the server's bucket for this user may already be low: another connection
    /// of the same user, or the one that just dropped, may have used it).
    package init(rate: Double, burst: Double, initial: Double = 1) {
        self.rate = max(rate, 0.001)
        self.burst = max(burst, 1)
        self.tokens = min(max(initial, 0), self.burst)
    }

    /// Takes one token at `now` if there is one.
    package mutating func take(now: Double) -> Bool {
        refill(now: now)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// Seconds from `now` until a token is available.
    package mutating func wait(now: Double) -> Double {
        refill(now: now)
        return tokens >= 1 ? 0 : (1 - tokens) / rate
    }

    /// Empties the bucket (the server said `rate_limited`).
    package mutating func drain(now: Double) {
        refill(now: now)
        tokens = 0
    }

    private mutating func refill(now: Double) {
        if let last { tokens = min(burst, tokens + (now - last) * rate) }
        last = now
    }
}
