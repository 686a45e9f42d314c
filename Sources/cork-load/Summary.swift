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

    struct CPU: Encodable, Sendable {
        var serverS: Double?
        var loadS: Double?
        /// The whole machine's CPU time, and what processes other than the server and cork-load took of it.
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
    var board: String
    var clients: Int
    var subscribers: Int
    var window: Int
    var warmupS: Int
    var durationS: Int
    var rate: Double?
    var cardsPerClient: Int
    var users: Int
    var serverRateOpsPerS: Int?
    var boardSeqAtStart: UInt64?
    var boardCardsAtStart: Int?
    var opsAcked: Int
    var opsPerS: Double
    var deliveries: Int
    var deliveriesPerS: Double
    var ackMs: Latency?
    var errors: [String: Int]
    var bytesIn: Int
    var bytesOut: Int
    var clientsConnected: Int
    var clientsCompleted: Int
    var seq: SeqFigures
    var cpu: CPU
    var idle: IdleFigures?
    var ok: Bool
}
