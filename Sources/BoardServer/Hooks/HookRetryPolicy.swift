import BoardCore
import BoardStore

/// When a hook's failed delivery is tried again, and when the hook is marked failing (pure: the time and the jitter
/// are inputs).
///
/// The n-th failure in a row waits `initial × 2^(n−1)`, at most `maximum`, times a jitter factor in 0.5…1.0 (so that
/// hooks failing together do not retry together). A hook that has failed without a success for `window` (about
/// 24 h) is marked failing: its later changes stay queued and it is still tried every `maximum`, so it recovers on
/// its own once the receiver is back.
public struct HookRetryPolicy: Hashable, Sendable {
    /// The first retry's delay. Default 1 s.
    public var initial: Duration = .seconds(1)
    /// The longest delay between attempts (also the pace of a failing hook). Default 1 h.
    public var maximum: Duration = .seconds(3600)
    /// How long a hook may fail without a success before it is marked failing. Default 24 h.
    public var window: Duration = .seconds(86_400)

    /// The defaults.
    public init() {}

    /// The delay before the next attempt after `failures` failed attempts in a row (at least 1); `jitter` in 0…1.
    public func delay(afterFailures failures: Int, jitter: Double) -> Duration {
        let doublings = min(max(failures - 1, 0), 40)
        let exponential = initial * (1 << doublings)
        let capped = exponential > maximum || exponential < .zero ? maximum : exponential
        return capped * (0.5 + 0.5 * min(max(jitter, 0), 1))
    }

    /// The state after a failed attempt at `now`: one failure more, the run's start kept, failing once the run is
    /// as long as `window`.
    public func failed(_ state: HookState, error: String, now: Timestamp) -> HookState {
        var next = state
        next.failures += 1
        let since = state.failingSince ?? now
        next.failingSince = since
        next.failing = now.milliseconds - since.milliseconds >= window.wholeMilliseconds
        next.lastError = error
        next.lastAttemptAt = now
        return next
    }

    /// The state after a successful delivery of `seq` at `now`: failures forgotten.
    public func delivered(_ state: HookState, seq: UInt64, now: Timestamp) -> HookState {
        HookState(delivered: max(state.delivered, seq), lastAttemptAt: now)
    }
}

extension Duration {
    /// Whole milliseconds.
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
