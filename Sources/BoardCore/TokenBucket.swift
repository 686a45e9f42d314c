/// A token bucket: `rate` tokens a second, at most `burst` saved up. Pure: time is passed in, in seconds or in
/// milliseconds on any clock that does not go backwards (if it does, no tokens are granted for the lost time).
///
/// The one bucket of the project: the server's per-user op rate (`rate_ops_per_s`, `rate_burst`) and presence rate,
/// and the client's pacing of ops to the rate the server advertised.
public struct TokenBucket: Sendable {
    /// Tokens gained per second.
    public let rate: Double
    /// The most tokens held.
    public let burst: Double
    /// Tokens held after the last refill.
    public private(set) var tokens: Double
    /// When tokens were last added, in seconds; nil until the first call.
    private var last: Double?

    /// A bucket holding `initial` tokens (at most `burst`), refilled from the first call on.
    public init(rate: Double, burst: Double, initial: Double = 1) {
        self.rate = max(rate, 0.001)
        self.burst = max(burst, 1)
        self.tokens = min(max(initial, 0), self.burst)
    }

    /// A full bucket at `nowMs`: `rate` tokens a second (at least 1), `burst` at most (at least 1).
    public init(rate: Int, burst: Int, nowMs: Int64) {
        self.rate = Double(max(1, rate))
        self.burst = Double(max(1, burst))
        self.tokens = self.burst
        self.last = Double(nowMs) / 1000
    }

    /// Takes one token at `now` (seconds) if there is one.
    public mutating func take(now: Double) -> Bool {
        refill(now: now)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// Takes a token at `nowMs`: nil when one was available, otherwise how many milliseconds until one is.
    public mutating func take(nowMs: Int64) -> UInt64? {
        let now = Double(nowMs) / 1000
        if take(now: now) { return nil }
        return UInt64((wait(now: now) * 1000).rounded(.up))
    }

    /// Seconds from `now` until a token is available.
    public mutating func wait(now: Double) -> Double {
        refill(now: now)
        return tokens >= 1 ? 0 : (1 - tokens) / rate
    }

    /// Empties the bucket (the server said `rate_limited`).
    public mutating func drain(now: Double) {
        refill(now: now)
        tokens = 0
    }

    private mutating func refill(now: Double) {
        if let last {
            tokens = min(burst, tokens + max(0, now - last) * rate)
            self.last = max(last, now)
        } else {
            last = now
        }
    }
}
