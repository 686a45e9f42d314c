import Synchronization

/// Counters every client adds to and the progress line reads once a second.
///
/// Atomics, not locks; clients add in batches (see `ClientTally.flush`) so that deliveries do not bounce a cache
/// line between cores for every delta.
final class LiveCounters: Sendable {
    /// Ops acknowledged since the start (warm-up included).
    let acked = Atomic<Int>(0)
    /// Deltas received by all subscribers since the start.
    let deliveries = Atomic<Int>(0)
    /// Rejects and errors since the start, a publisher's or subscriber's lost or failed connection among them.
    let errors = Atomic<Int>(0)
    /// Publishers and subscribers whose connection has ended, for any reason.
    let ended = Atomic<Int>(0)
}
