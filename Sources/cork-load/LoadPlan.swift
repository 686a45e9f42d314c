/// Everything one cork-load run needs, as data; only `CorkLoad` reads the command line.
struct LoadPlan: Sendable {
    /// The accounts to connect as; client `i` uses `targets[i % targets.count]`.
    var targets: [Target]
    /// Active clients (each sends ops in a closed loop).
    var clients: Int
    /// How many of the active clients subscribe to the board (the first ones); the others only send ops.
    var subscribers: Int
    /// Ops in flight per active client.
    var window: Int
    /// Cards each active client adds (and then moves); see `OpSource`.
    var cardsPerClient: Int
    /// Measured seconds, after `warmup`.
    var duration: Int
    /// Seconds of load before measuring.
    var warmup: Int
    /// Total ops per second to offer, split evenly over the clients; nil for an unpaced closed loop.
    var rate: Double?
    /// Authenticated, subscribed connections that only answer pings, held for the whole run.
    var idle: Int
    /// Whether the idle connections subscribe to the board (the default) or only authenticate.
    var idleSubscribes: Bool
    /// The server's process id, to read its RSS and CPU time from /proc.
    var serverPID: Int32?
    /// A short random id that makes client ids and card ids unique to this run.
    var runID: String

    /// Connections that may be between TCP connect and `subscribed` at once (TLS handshakes are costly, and
    /// connections that have not said hello are capped per address).
    static let connectConcurrency = 32
    /// How long a client may take from connect to `subscribed`.
    static let connectTimeoutSeconds: Int64 = 30
    /// How long after the end of sending a client waits for its last acks before giving up.
    static let drainTimeoutSeconds: Int64 = 10
}
