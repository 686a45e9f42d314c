import Foundation

/// Everything a run measured, and the verdict: the seqs every subscriber saw were contiguous, and every client
/// connected and ran to the end.
struct LoadReport: Sendable {
    /// Both processes' CPU time at one instant, in seconds (nil when /proc could not be read).
    struct CPUSample: Sendable {
        var server: Double?
        var load: Double?
        var machine: Double?
    }

    /// The idle connections and the server's RSS around their opening.
    struct Idle: Sendable {
        var rssBeforeKib: Int?
        var rssAfterKib: Int?
        var tally = IdleClient.Tally()
        var connectedAtEnd = 0
    }

    let plan: LoadPlan
    var active = ClientTally()
    var idle = Idle()
    var cpuStart: CPUSample?
    var cpuEnd: CPUSample?

    init(plan: LoadPlan) { self.plan = plan }

    /// Whether the run is valid: no seq gap or repeat, and no client that failed to connect or dropped out.
    var succeeded: Bool {
        active.seqBroken == 0 && active.connected == plan.clients && active.completed == plan.clients
            && idle.tally.connected == plan.idle && idle.connectedAtEnd == plan.idle
    }

    /// The figures, as one JSON-encodable value (`--json`).
    var summary: Summary {
        let seconds = Double(plan.duration)
        let latency = active.acked > 0 ? active.latency : nil
        func ms(_ percentile: Double) -> Double { Double(latency?.valueAtPercentile(percentile) ?? 0) / 1000 }
        var cpu = Summary.CPU()
        if let start = cpuStart, let end = cpuEnd {
            if let a = start.server, let b = end.server { cpu.serverS = b - a }
            if let a = start.load, let b = end.load { cpu.loadS = b - a }
            if let a = start.machine, let b = end.machine {
                cpu.machineS = b - a
                cpu.othersS = max(0, (b - a) - (cpu.serverS ?? 0) - (cpu.loadS ?? 0))
            }
            cpu.serverUsPerOp = cpu.serverS.flatMap { active.acked > 0 ? $0 * 1e6 / Double(active.acked) : nil }
            cpu.serverUsPerDelivery = cpu.serverS.flatMap { active.deliveries > 0 ? $0 * 1e6 / Double(active.deliveries) : nil }
            cpu.loadUsPerDelivery = cpu.loadS.flatMap { active.deliveries > 0 ? $0 * 1e6 / Double(active.deliveries) : nil }
        }
        var idleSummary: Summary.IdleFigures?
        if plan.idle > 0 {
            var figures = Summary.IdleFigures(
                requested: plan.idle, connected: idle.tally.connected, heldToEnd: idle.connectedAtEnd,
                rssBeforeKib: idle.rssBeforeKib, rssAfterKib: idle.rssAfterKib)
            if let before = idle.rssBeforeKib, let after = idle.rssAfterKib, idle.tally.connected > 0 {
                figures.kibPerConnection = Double(after - before) / Double(idle.tally.connected)
            }
            idleSummary = figures
        }
        let first = plan.targets.first
        return Summary(
            server: first.map { "\($0.host):\($0.port)" } ?? "", board: first?.board ?? "", clients: plan.clients,
            subscribers: plan.subscribers, window: plan.window, warmupS: plan.warmup, durationS: plan.duration,
            rate: plan.rate, cardsPerClient: plan.cardsPerClient, users: active.users.count,
            serverRateOpsPerS: active.rateOpsPerS, boardSeqAtStart: active.boardSeq, boardCardsAtStart: active.boardCards,
            opsAcked: active.acked, opsPerS: Double(active.acked) / seconds, deliveries: active.deliveries,
            deliveriesPerS: Double(active.deliveries) / seconds,
            ackMs: latency.map { _ in
                Summary.Latency(p50: ms(50), p90: ms(90), p99: ms(99), p99_9: ms(99.9), max: ms(100))
            },
            errors: active.errors.merging(idle.tally.errors, uniquingKeysWith: +), bytesIn: active.bytes.received,
            bytesOut: active.bytes.sent, clientsConnected: active.connected, clientsCompleted: active.completed,
            seq: Summary.SeqFigures(
                subscribers: active.subscribed, contiguous: active.seqBroken == 0, clientsBroken: active.seqBroken,
                gaps: active.gaps, duplicates: active.duplicates),
            cpu: cpu, idle: idleSummary, ok: succeeded)
    }

    /// The report as one JSON object on one line.
    func json() -> String {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(summary) else { return #"{"ok":false,"error":"encoding"}"# }
        return String(decoding: data, as: UTF8.self)
    }
}
