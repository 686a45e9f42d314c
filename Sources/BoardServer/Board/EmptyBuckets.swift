import BoardCore

/// What a session knows about its user's token buckets after a board answered `rate_limited`: until `untilMs` the
/// bucket holds no token (other sessions only ever take tokens), so a further op can be refused by the session
/// itself, without decoding more than the op line or waiting on the board's actor — a flooder then costs the board
/// nothing and the other users' ops never queue behind its rejections.
///
/// Only ops the board could not answer otherwise are refused here: a `mut` above every mut of this client the board
/// had applied or was applying when it answered (a resend of an applied op still goes to the board for its original
/// `ack`). The window is at most `maxWindowMs`, so the board still sees an op of a continuous flood well within
/// `RateLimitRun.gapMs` and closes the connection after `rate_close_ms` as Protocol.md says. Pure: time is passed in,
/// as monotonic milliseconds (`ServerClock.monotonicMs`), like the board's bucket.
struct EmptyBuckets: Sendable {
    /// The longest a board's `rate_limited` answer is reused (below `RateLimitRun`'s gap of 1 s).
    let maxWindowMs: Int64
    private var known: [BoardID: (tokenAtMs: Int64, untilMs: Int64, aboveMut: UInt64)] = [:]

    init(maxWindowMs: Int64 = 250) { self.maxWindowMs = maxWindowMs }

    /// The board refused an op as `rate_limited` at `nowMs`: no token before `nowMs + retryAfterMs`; `highestMut` is
    /// the client's highest mut applied or pending there.
    mutating func limited(_ board: BoardID, nowMs: Int64, retryAfterMs: UInt64, highestMut: UInt64) {
        let retry = Int64(clamping: retryAfterMs)
        known[board] = (nowMs + retry, nowMs + min(retry, maxWindowMs), highestMut)
    }

    /// The board answered an op otherwise: nothing is known any more.
    mutating func forget(_ board: BoardID) { known[board] = nil }

    /// The `retry_after_ms` to refuse `mut` with at `nowMs` without asking the board, or nil to ask it.
    func refusal(_ board: BoardID, mut: UInt64, nowMs: Int64) -> UInt64? {
        guard let entry = known[board], nowMs < entry.untilMs, mut > entry.aboveMut else { return nil }
        return UInt64(entry.tokenAtMs - nowMs)
    }
}
