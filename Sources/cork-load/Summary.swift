/// The figures of a run, as `--json` prints them (keys in snake_case).
struct Summary: Encodable, Sendable {
    struct Latency: Encodable, Sendable {
        var p50, p90, p99, p99_9, max: Double
    }

    struct SeqFigures: Encodable, Sendable {
        var subscribers: Int
        var contiguous: Bool
        var clientsBroken: Int
        var gaps: Int
        var duplicates: Int
    }

    struct ConvergenceFigures: Encodable, Sendable {
        var converged: Bool
        var catchUpS: Double?
        /// Subscribers still behind the server when the wait for them ended (then `catchUpS` is nil).
        var behindAtEnd: Int?
        var error: String?
        var boards: [Convergence.Verdict]
    }

    struct CPU: Encodable, Sendable {
        var serverS: Double?
        var loadS: Double?
        /// The CPU time of every process over the window (server + cork-load + others), and what processes other than
        /// the server and cork-load took of it (each process's own count; processes that ended meanwhile are missed).
        var machineS: Double?
        var othersS: Double?
        var serverUsPerOp: Double?
        var serverUsPerDelivery: Double?
        var loadUsPerDelivery: Double?
    }

    struct IdleFigures: Encodable, Sendable {
        var requested: Int
        var connected: Int
        var heldToEnd: Int
        var rssBeforeKib: Int?
        var rssAfterKib: Int?
        var kibPerConnection: Double?
    }

    var server: String
    var boards: Int
    var subscribersPerBoard: Int
    var publishers: Int
    var idleConnections: Int
    /// Ops in flight per publisher (closed loop), or nil when paced.
    var window: Int?
    var rate: Double?
    var mix: String
    var warmupS: Int
    var durationS: Int
    /// The seconds measured: `durationS`, or fewer when the run stopped early (every connection ended).
    var measuredS: Int
    var cardsPerBoard: Int
    var users: Int
    var serverRateOpsPerS: Int?
    var opsAcked: Int
    var opsPerS: Double
    /// Ops sent over the whole run, by kind.
    var sent: [String: Int]
    /// Paced slots not sent because the server held the publishers back with `rate_limited`'s `retry_after_ms`.
    var slotsHeldBack: Int
    /// Paced slots never sent: the publishers' windows stayed full (the server answered too slowly for the rate).
    var slotsUnsent: Int
    /// Ops still unanswered when the publishers' connections ended.
    var opsUnanswered: Int
    var deliveries: Int
    var deliveriesPerS: Double
    var ackMs: Latency?
    var fanoutMs: Latency?
    var fanoutOverruns: Int
    var errors: [String: Int]
    var bytesIn: Int
    var bytesOut: Int
    var publishersConnected: Int
    var publishersCompleted: Int
    var subscribersConnected: Int
    var subscribersCompleted: Int
    var seq: SeqFigures
    var convergence: ConvergenceFigures
    var cpu: CPU
    var idle: IdleFigures?
    var ok: Bool
    /// The verdict line of the table (`ok`, or `FAILED: …`, and whether the server rate-limited the run).
    var verdict = ""
    /// The clients that did not connect or lost their connection, each with why (the first 100).
    var failedClients: [String] = []
}
