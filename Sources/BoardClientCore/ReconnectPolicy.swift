/// How a client backs off between connection attempts: exponential, capped, with jitter.
///
/// The n-th wait (n from 0) is `min(maximum, initial × multiplier^n)`, scaled by a random factor in
/// `1 − jitter … 1`, so many clients cut off at once do not come back in step ("full jitter" would let some retry
/// at once; keeping half the delay gives the server room to restart).
public struct ReconnectPolicy: Hashable, Sendable {
    /// The first wait.
    public var initial: Duration
    /// The longest wait.
    public var maximum: Duration
    /// The growth factor per failed round.
    public var multiplier: Double
    /// The fraction of a wait that is random (0 … 1).
    public var jitter: Double
    /// Consecutive failed rounds after which the client gives up; nil retries for ever.
    public var maxRounds: Int?
    /// Failed rounds after which the client gives up while no server has answered it (a `welcome`, or a refusal
    /// with when to try again); nil: as ``maxRounds``.
    /// A long-running client (`cork watch`, a TUI) that must fail fast on a wrong address yet ride out later outages
    /// sets this and leaves ``maxRounds`` nil.
    public var maxRoundsUntilConnected: Int?

    /// 250 ms doubling up to 30 s, half of it jitter, retrying for ever.
    public init(
        initial: Duration = .milliseconds(250), maximum: Duration = .seconds(30), multiplier: Double = 2,
        jitter: Double = 0.5, maxRounds: Int? = nil, maxRoundsUntilConnected: Int? = nil
    ) {
        self.maxRoundsUntilConnected = maxRoundsUntilConnected
        self.initial = initial
        self.maximum = maximum
        self.multiplier = multiplier
        self.jitter = jitter
        self.maxRounds = maxRounds
    }

    /// The wait before round `round` (0-based) with `random` in 0 … 1.
    public func delay(round: Int, random: Double) -> Duration {
        let base = initial.seconds * pow(multiplier, Double(max(0, min(round, 62))))
        let capped = min(base, maximum.seconds)
        let factor = 1 - jitter * min(max(random, 0), 1)
        return .milliseconds(Int64((capped * factor * 1000).rounded()))
    }
}

extension Duration {
    /// The duration in seconds, as a Double.
    package var seconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }
}

/// `x` raised to `y` for the small integer powers backoff needs, without Foundation.
private func pow(_ x: Double, _ y: Double) -> Double {
    var result = 1.0
    var n = Int(y)
    while n > 0 {
        result *= x
        n -= 1
    }
    return result
}
