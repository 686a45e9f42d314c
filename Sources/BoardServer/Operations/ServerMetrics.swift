import BoardStore
import BoardTransport
import BoardWire
import CoreMetrics
import NIOSSL
import Prometheus
import Synchronization

/// What the server counts, through swift-metrics into one Prometheus registry per server (no global bootstrap, so
/// several servers in one process, as in the tests, never mix their numbers).
///
/// Event counts (ops applied and rejected, commits, slow consumers, subscriptions, TLS failures) are incremented
/// where they happen; levels (connections, subscriptions per board, fan-out queue bytes, health) are sampled when
/// the endpoint is scraped (``ServerMetrics/Sample``). `GET /metrics` on the admin listener serves ``exposition()``.
/// The names are listed in docs/operating.md.
public final class ServerMetrics: Sendable {
    /// The Prometheus registry every metric below lives in.
    public let registry: PrometheusCollectorRegistry
    /// Whether this node is serving (what the health port answers).
    public let health: NodeHealth
    let factory: PrometheusMetricsFactory
    private let metricsPortBound = Atomic<Int>(-1)
    private let healthPortBound = Atomic<Int>(-1)

    let opsApplied: CoreMetrics.Counter
    let rejectedByCode: [String: CoreMetrics.Counter]
    let commitBatchSize: CoreMetrics.Recorder
    let commitDuration: CoreMetrics.Timer
    let commitFailures: CoreMetrics.Counter
    let slowConsumerCloses: CoreMetrics.Counter
    let subscribeResumed: CoreMetrics.Counter
    let subscribeSnapshotInitial: CoreMetrics.Counter
    let subscribeSnapshotResync: CoreMetrics.Counter
    let tlsHandshakeFailures: CoreMetrics.Counter
    let loginDelays: CoreMetrics.Counter
    let setupFailures: CoreMetrics.Counter
    let listenReconnects: CoreMetrics.Counter
    let notifyLag: CoreMetrics.Gauge
    let connectionsPreauth: CoreMetrics.Gauge
    let connectionsAuthenticated: CoreMetrics.Gauge
    let boardsLoaded: CoreMetrics.Gauge
    let subscriptions: CoreMetrics.Gauge
    let boardsSubscribed: CoreMetrics.Gauge
    let boardSubscribersMax: CoreMetrics.Gauge
    let fanOutQueueBytes: CoreMetrics.Gauge
    let serving: CoreMetrics.Gauge
    let hookDeliveries: CoreMetrics.Counter
    let hookFailures: CoreMetrics.Counter

    /// Commit batch size buckets (changes per transaction).
    public static let batchBuckets: [Double] = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000]
    /// Commit latency buckets.
    public static let durationBuckets: [Duration] = [
        .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
        .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
        .seconds(5),
    ]

    /// Makes zeroed metrics in a fresh registry; `health` decides what the health port answers.
    public init(health: NodeHealth = NodeHealth()) {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.valueHistogramBuckets["corkd_commit_batch_size"] = Self.batchBuckets
        factory.durationHistogramBuckets["corkd_commit_duration_seconds"] = Self.durationBuckets
        self.registry = registry
        self.factory = factory
        self.health = health
        func counter(_ label: String, _ dimensions: [(String, String)] = []) -> CoreMetrics.Counter {
            CoreMetrics.Counter(label: label, dimensions: dimensions, factory: factory)
        }
        func gauge(_ label: String, _ dimensions: [(String, String)] = []) -> CoreMetrics.Gauge {
            CoreMetrics.Gauge(label: label, dimensions: dimensions, factory: factory)
        }
        opsApplied = counter("corkd_ops_applied_total")
        // Every code is declared up front (a bounded set), so a scrape shows 0 rather than nothing.
        rejectedByCode = Dictionary(
            uniqueKeysWithValues: RejectCode.allCases.map { ($0.rawValue, counter("corkd_ops_rejected_total", [("code", $0.rawValue)])) })
        commitBatchSize = CoreMetrics.Recorder(label: "corkd_commit_batch_size", dimensions: [], aggregate: true, factory: factory)
        commitDuration = CoreMetrics.Timer(label: "corkd_commit_duration_seconds", dimensions: [], factory: factory)
        commitFailures = counter("corkd_commit_failures_total")
        slowConsumerCloses = counter("corkd_slow_consumer_closes_total")
        subscribeResumed = counter("corkd_subscribes_total", [("kind", "resume")])
        subscribeSnapshotInitial = counter("corkd_subscribes_total", [("kind", "snapshot_initial")])
        subscribeSnapshotResync = counter("corkd_subscribes_total", [("kind", "snapshot_resync")])
        tlsHandshakeFailures = counter("corkd_tls_handshake_failures_total")
        loginDelays = counter("corkd_login_delays_total")
        setupFailures = counter("corkd_connection_setup_failures_total")
        // Declared for the PostgreSQL store (LISTEN/NOTIFY); a SQLite node reports 0.
        listenReconnects = counter("corkd_listen_reconnects_total")
        notifyLag = gauge("corkd_notify_lag_seconds")
        connectionsPreauth = gauge("corkd_connections", [("state", "preauth")])
        connectionsAuthenticated = gauge("corkd_connections", [("state", "authenticated")])
        boardsLoaded = gauge("corkd_boards_loaded")
        subscriptions = gauge("corkd_subscriptions")
        boardsSubscribed = gauge("corkd_boards_subscribed")
        boardSubscribersMax = gauge("corkd_board_subscribers_max")
        fanOutQueueBytes = gauge("corkd_fanout_queue_bytes")
        serving = gauge("corkd_serving")
        hookDeliveries = counter("corkd_hook_attempts_total", [("outcome", "delivered")])
        hookFailures = counter("corkd_hook_attempts_total", [("outcome", "failed")])
        notifyLag.record(0)
    }

    // MARK: Counting sites (one call each)

    /// A batch of `count` changes was committed after `duration`.
    func committed(_ count: Int, in duration: Duration) {
        opsApplied.increment(by: count)
        commitBatchSize.record(count)
        commitDuration.recordNanoseconds(duration.wholeNanoseconds)
        health.storeCommitted()
    }

    /// A commit failed: its ops were rejected (counted by ``rejected(_:)``), and the health port says so.
    func commitFailed() {
        commitFailures.increment()
        health.storeFailed()
    }

    /// A read of the store failed: when it could not reach the store (`.io`), the health port says so (for the hold).
    func readFailed(_ error: StoreError) {
        if error.code == .io { health.storeFailed() }
    }

    /// The node lost its connection to a shared store (PostgreSQL's LISTEN connection) and has not made it again:
    /// the health port answers 503 until ``storeReached()``.
    func storeUnreachable() { health.storeUnreachable() }

    /// The node reached its shared store again (the LISTEN connection is back).
    func storeReached() { health.storeCommitted() }

    /// An op was answered with `reject` and this code.
    func rejected(_ code: RejectCode) { rejectedByCode[code.rawValue]?.increment() }

    /// A subscription started: a resume inside the log (`reason` nil) or a snapshot.
    func subscribed(snapshot reason: ServerMessage.SnapshotReason?) {
        switch reason {
        case nil: subscribeResumed.increment()
        case .initial?: subscribeSnapshotInitial.increment()
        default: subscribeSnapshotResync.increment()
        }
    }

    /// The transport ended a connection with this code (a slow consumer, a handshake timeout, …).
    func transportClosed(_ code: TransportError.Code) {
        switch code {
        case .slowConsumer: slowConsumerCloses.increment()
        case .handshakeTimeout: tlsHandshakeFailures.increment()
        default: break
        }
    }

    /// A webhook's receiver took a change (2xx).
    func hookDelivered() { hookDeliveries.increment() }

    /// A webhook delivery attempt failed (it will be retried).
    func hookFailed() { hookFailures.increment() }

    /// A failed login was answered late: its address failed too often within a minute (RELIABILITY.md A2).
    func loginDelayed() { loginDelays.increment() }

    /// A connection ended with an error outside the transport's own (a TLS alert, a refused handshake, …).
    func connectionFailed(_ error: any Error) {
        if Self.isHandshakeFailure(error) { tlsHandshakeFailures.increment() }
    }

    /// Whether `error` ended a connection during its TLS handshake (a plaintext client, no shared version or cipher).
    static func isHandshakeFailure(_ error: any Error) -> Bool {
        guard let error = error as? NIOSSLError else { return false }
        if case .handshakeFailed = error { return true }
        return false
    }

    /// Counts one failed connection set-up; returns the new total.
    func connectionSetupFailed() -> Int {
        setupFailures.increment()
        return Int(value(of: "corkd_connection_setup_failures_total") ?? 0)
    }

    /// The PostgreSQL store re-established its LISTEN connection.
    public func listenReconnected() { listenReconnects.increment() }

    /// The PostgreSQL store's notify lag: from a commit on another node to this node's fan-out of it.
    public func recordNotifyLag(_ lag: Duration) { notifyLag.record(Double(lag.wholeNanoseconds) / 1e9) }

    /// Accepted connections closed because their set-up failed (also `corkd_connection_setup_failures_total`).
    public var connectionSetupFailures: Int { Int(value(of: "corkd_connection_setup_failures_total") ?? 0) }

    /// The port the metrics listener is bound to, once it is (useful with port 0).
    public var metricsPort: Int? { Self.port(metricsPortBound.load(ordering: .relaxed)) }
    /// The port the health listener is bound to, once it is.
    public var healthPort: Int? { Self.port(healthPortBound.load(ordering: .relaxed)) }

    func bound(_ role: AdminListener.Role, port: Int) {
        if role == .metrics { metricsPortBound.store(port, ordering: .relaxed) } else { healthPortBound.store(port, ordering: .relaxed) }
    }

    private static func port(_ port: Int) -> Int? {
        port < 0 ? nil : port
    }

    // MARK: Exposition

    /// The Prometheus text exposition of every metric, as last sampled.
    public func exposition() -> String { registry.emitToString() }

    /// Samples the levels, then returns the exposition.
    func exposition(after sample: Sample) -> String {
        connectionsPreauth.record(sample.connections - sample.authenticated)
        connectionsAuthenticated.record(sample.authenticated)
        boardsLoaded.record(sample.boards)
        subscriptions.record(sample.subscriptions)
        boardsSubscribed.record(sample.boardsSubscribed)
        boardSubscribersMax.record(sample.subscribersMax)
        fanOutQueueBytes.record(sample.queuedBytes)
        serving.record(health.isServing ? 1 : 0)
        return exposition()
    }

    /// The value of one sample line of ``exposition()`` (`name` with its labels, e.g.
    /// `corkd_ops_rejected_total{code="wip_limit"}`), or nil when there is none.
    public func value(of series: String) -> Double? { PrometheusText.value(of: series, in: exposition()) }
}

extension Duration {
    /// The whole duration in nanoseconds (saturating).
    var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : product + attoseconds / 1_000_000_000
    }
}
