/// Continuous rate limiting on one connection, for `rate_close_ms` (Protocol.md, "Rate limit").
///
/// A run starts with an op that found the user's token bucket empty and goes on while each next such op comes less
/// than `gapMs` after the previous one; ops accepted in between (the bucket refills a little at a time) do not end
/// it. Once a run has lasted `closeAfterMs`, the next op that finds the bucket empty closes the connection instead of
/// being rejected. Pure: time is passed in, as monotonic milliseconds (`ServerClock.monotonicMs`), so a wall clock
/// set back neither keeps a run open nor one set forward ends it.
struct RateLimitRun: Sendable {
    /// How long a run may last before the connection is closed (`rate_close_ms`).
    let closeAfterMs: Int64
    /// The longest pause between two rate-limited ops that still counts as the same run.
    let gapMs: Int64
    /// When the current run began, if there is one.
    private(set) var startedMs: Int64?
    private var lastMs: Int64?

    init(closeAfterMs: Int64, gapMs: Int64 = 1_000) {
        self.closeAfterMs = closeAfterMs
        self.gapMs = gapMs
    }

    /// An op found the bucket empty at `nowMs`: true when the connection must now be closed (with
    /// `too_many_errors`) instead of the op being rejected with `rate_limited`.
    mutating func limited(nowMs: Int64) -> Bool {
        if let last = lastMs, nowMs - last < gapMs, let started = startedMs {
            lastMs = max(last, nowMs)
            return nowMs - started >= closeAfterMs
        }
        startedMs = nowMs
        lastMs = nowMs
        return false
    }
}
