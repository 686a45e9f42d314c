import Synchronization

/// Counts of faults an operator should know about, readable while the server runs (``BoardServer/counters``).
///
/// Each fault is also logged; the counts say how often it happened without reading the whole log.
public final class ServerCounters: Sendable {
    private let setupFailures = Atomic<Int>(0)

    /// Makes zeroed counters.
    public init() {}

    /// Accepted connections closed because their set-up (socket options, TLS, pipeline) failed. Each one is logged
    /// at `warning`; the server keeps accepting.
    public var connectionSetupFailures: Int { setupFailures.load(ordering: .relaxed) }

    /// Counts one failed connection set-up; returns the new total.
    func connectionSetupFailed() -> Int { setupFailures.add(1, ordering: .relaxed).newValue }
}
