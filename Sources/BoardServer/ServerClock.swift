import BoardCore
import Foundation
import NIOCore

/// Where the server's notion of "now" comes from; tests supply their own.
///
/// Two readings: `now()` is wall time, for what is stored or shown (activity and token timestamps, token expiry,
/// `ts` fields, history age); `monotonicMs()` never jumps, for every duration and deadline the server measures
/// (token buckets, runs of rate limiting, presence timeouts, the error budget, the login throttle). A wall clock
/// set back an hour must not freeze a bucket for an hour, nor one set forward expire everything at once.
public protocol ServerClock: Sendable {
    /// The current wall-clock time.
    func now() -> Timestamp
    /// Milliseconds on a clock that moves at the rate of real time and never jumps; its zero is arbitrary, so only
    /// differences of two readings mean anything.
    func monotonicMs() -> Int64

    /// Lets `milliseconds` of this clock's time pass before the caller goes on (a session that answered
    /// `rate_limited` reads nothing meanwhile, `Session.readPauseMs`). A real clock sleeps; a test clock whose time
    /// moves only when the test moves it returns at once.
    func pause(milliseconds: Int64) async

    /// Returns after `milliseconds` of this clock's time: the server's timers (a presence flush, a held drag
    /// position, a retry) wait here. Cancellation ends the wait early.
    func sleep(milliseconds: Int64) async
}

extension ServerClock {
    /// Sleeps (cancellation ends the pause early).
    public func pause(milliseconds: Int64) async {
        try? await Task.sleep(for: .milliseconds(milliseconds))
    }

    /// Sleeps on the system's clock (cancellation ends the wait early).
    public func sleep(milliseconds: Int64) async {
        try? await Task.sleep(for: .milliseconds(milliseconds))
    }
}

/// The wall clock, with the system's monotonic clock for durations.
public struct WallClock: ServerClock {
    /// Makes the wall clock.
    public init() {}

    /// The current wall-clock time in milliseconds.
    public func now() -> Timestamp { Timestamp(milliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))) }

    /// Milliseconds since an arbitrary point, on `CLOCK_MONOTONIC` (what NIO's timers use).
    public func monotonicMs() -> Int64 { Int64(NIODeadline.now().uptimeNanoseconds / 1_000_000) }
}
