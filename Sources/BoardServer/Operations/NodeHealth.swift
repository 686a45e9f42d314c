import Synchronization

/// Whether this node is serving, as the health port tells a load balancer: listening, store reachable and committing,
/// not shutting down.
///
/// A failed commit, or a read that could not reach the store, marks the store failing for ``failureHold`` (default
/// 10 s): the health port answers 503 until a commit succeeds, the store is reached again, or the hold has passed
/// with no new failure (then the next commit tries the store again). A shared store's lost connection (PostgreSQL:
/// the LISTEN connection dropped and cannot be made again) marks it unreachable with no time limit, until the node
/// reaches it again. Nothing here touches the store: a health check costs three atomic loads.
public final class NodeHealth: Sendable {
    /// What the health port answers.
    public enum Verdict: Sendable, Equatable {
        /// Serving: `200 serving`.
        case serving
        /// Not listening yet: `503 starting`.
        case starting
        /// The last commit failed, or a read could not reach the store, within the hold: `503 store failing`.
        case storeFailing
        /// The node cannot reach its database (its connection is lost and cannot be made again): `503 store
        /// unreachable`.
        case storeUnreachable
        /// Shutting down (or the listener failed): `503 stopping`.
        case stopping

        /// The line the health port sends.
        public var text: String {
            switch self {
            case .serving: "serving"
            case .starting: "starting"
            case .storeFailing: "store failing"
            case .storeUnreachable: "store unreachable"
            case .stopping: "stopping"
            }
        }
    }

    private let phase = Atomic<Int>(0)
    /// Milliseconds since `origin` of the last failed commit plus 1; 0 when the last commit succeeded.
    private let failedAt = Atomic<Int64>(0)
    /// Whether the node's connection to a shared store is lost (until it is reached again).
    private let unreachable = Atomic<Bool>(false)
    private let origin = ContinuousClock.now
    /// How long a failed commit keeps the node unhealthy without a later successful commit.
    public let failureHold: Duration

    /// Makes a health that is `starting` until ``listening()``.
    public init(failureHold: Duration = .seconds(10)) { self.failureHold = failureHold }

    /// The server is listening.
    func listening() { _ = phase.compareExchange(expected: 0, desired: 1, ordering: .relaxed) }

    /// The server is shutting down or stopped: unhealthy from now on.
    func stopping() { phase.store(2, ordering: .relaxed) }

    /// A commit succeeded, or the node reached its store again: the store is serving.
    func storeCommitted() {
        if failedAt.load(ordering: .relaxed) != 0 { failedAt.store(0, ordering: .relaxed) }
        if unreachable.load(ordering: .relaxed) { unreachable.store(false, ordering: .relaxed) }
    }

    /// A commit failed, or a read could not reach the store.
    func storeFailed() { failedAt.store(elapsedMs + 1, ordering: .relaxed) }

    /// The node lost its connection to a shared store and cannot make it again: unhealthy until `storeCommitted()`.
    func storeUnreachable() { unreachable.store(true, ordering: .relaxed) }

    /// What the health port answers now.
    public var verdict: Verdict {
        switch phase.load(ordering: .relaxed) {
        case 0: return .starting
        case 1:
            if unreachable.load(ordering: .relaxed) { return .storeUnreachable }
            let failed = failedAt.load(ordering: .relaxed)
            let holdMs = failureHold.components.seconds * 1_000 + failureHold.components.attoseconds / 1_000_000_000_000_000
            return failed != 0 && elapsedMs - (failed - 1) < holdMs ? .storeFailing : .serving
        default: return .stopping
        }
    }

    /// Whether the health port answers 200.
    public var isServing: Bool { verdict == .serving }

    private var elapsedMs: Int64 {
        let elapsed = ContinuousClock.now - origin
        return elapsed.components.seconds * 1_000 + elapsed.components.attoseconds / 1_000_000_000_000_000
    }
}
