import Foundation
import Histogram

/// Everything a run measured, and the verdict: every client connected and ran to the end, the seqs every subscriber
/// saw were contiguous, and every replica converged on the server's board.
struct LoadReport: Sendable {
    /// Both processes' CPU time at one instant, in seconds (nil when /proc could not be read).
    struct CPUSample: Sendable {
        var server: Double?
        var load: Double?
        /// Every running process's CPU time (for what the others took meanwhile).
        var processes: [Int32: Double] = [:]
    }

    /// The idle connections and the server's RSS around their opening.
    struct Idle: Sendable {
        var rssBeforeKib: Int?
        var rssAfterKib: Int?
        var tally = IdleClient.Tally()
        var connectedAtEnd = 0
    }

    let plan: LoadPlan
    var publishers = ClientTally()
    var subscribers = ClientTally()
    var idle = Idle()
    var cpuStart: CPUSample?
    var cpuEnd: CPUSample?
    /// The seconds measured when the run stopped early (nil: the whole `--duration`).
    var measuredSeconds: Int?
    /// The server's state of each board at the end, and why it could not be read.
    var serverBoards: [Convergence.ServerBoard]?
    var checkError: String?
    /// How long the subscribers took to reach the server's seq after the last publisher finished.
    var catchUpSeconds: Double?
    /// Subscribers still behind the server's seq when the wait for them ended (nil: none).
    var behindAtEnd: Int?
    var verdicts: [Convergence.Verdict] = []

    init(plan: LoadPlan) { self.plan = plan }

    var subscriberCount: Int { plan.layout.boards * plan.layout.subscribersPerBoard }

    /// Whether every replica converged (true when there is nothing to check).
    var converged: Bool {
        guard subscriberCount > 0 || plan.layout.publishers > 0 else { return true }
        return checkError == nil && verdicts.count == plan.boards.count && verdicts.allSatisfy(\.converged)
    }

    /// Whether the run is valid.
    var succeeded: Bool {
        let layout = plan.layout
        return publishers.publishersConnected == layout.publishers && publishers.publishersCompleted == layout.publishers
            && subscribers.subscribersConnected == subscriberCount && subscribers.subscribersCompleted == subscriberCount
            && subscribers.seqBroken == 0 && converged
            && idle.tally.connected == layout.idle && idle.connectedAtEnd == layout.idle
    }

    /// The figures, as one JSON-encodable value (`--json`).
    var summary: Summary {
        let measured = measuredSeconds ?? plan.duration
        func perSecond(_ count: Int) -> Double { measured > 0 ? Double(count) / Double(measured) : 0 }
        func latency(_ histogram: Histogram<UInt64>?) -> Summary.Latency? {
            guard let histogram, histogram.totalCount > 0 else { return nil }
            func ms(_ percentile: Double) -> Double { Double(histogram.valueAtPercentile(percentile)) / 1000 }
            return Summary.Latency(p50: ms(50), p90: ms(90), p99: ms(99), p99_9: ms(99.9), max: Double(histogram.max) / 1000)
        }
        let acked = publishers.acked
        let deliveries = subscribers.deliveries
        var cpu = Summary.CPU()
        if let start = cpuStart, let end = cpuEnd {
            if let a = start.server, let b = end.server { cpu.serverS = b - a }
            if let a = start.load, let b = end.load { cpu.loadS = b - a }
            if !start.processes.isEmpty, !end.processes.isEmpty {
                let others = ProcStats.others(
                    from: start.processes, to: end.processes, excluding: Set([ProcStats.ownPID] + (plan.serverPID.map { [$0] } ?? [])))
                cpu.othersS = others
                cpu.machineS = others + (cpu.serverS ?? 0) + (cpu.loadS ?? 0)
            }
            cpu.serverUsPerOp = cpu.serverS.flatMap { acked > 0 ? $0 * 1e6 / Double(acked) : nil }
            cpu.serverUsPerDelivery = cpu.serverS.flatMap { deliveries > 0 ? $0 * 1e6 / Double(deliveries) : nil }
            cpu.loadUsPerDelivery = cpu.loadS.flatMap { deliveries > 0 ? $0 * 1e6 / Double(deliveries) : nil }
        }
        var idleSummary: Summary.IdleFigures?
        if plan.layout.idle > 0 {
            var figures = Summary.IdleFigures(
                requested: plan.layout.idle, connected: idle.tally.connected, heldToEnd: idle.connectedAtEnd,
                rssBeforeKib: idle.rssBeforeKib, rssAfterKib: idle.rssAfterKib)
            if let before = idle.rssBeforeKib, let after = idle.rssAfterKib, idle.tally.connected > 0 {
                figures.kibPerConnection = Double(after - before) / Double(idle.tally.connected)
            }
            idleSummary = figures
        }
        let first = plan.targets.first
        var errors = publishers.errors.merging(subscribers.errors, uniquingKeysWith: +)
        errors.merge(idle.tally.errors, uniquingKeysWith: +)
        let layout = plan.layout
        var summary = Summary(
            server: first.map { "\($0.host):\($0.port)" } ?? "", boards: layout.boards,
            subscribersPerBoard: layout.subscribersPerBoard, publishers: layout.publishers, idleConnections: layout.idle,
            window: plan.rate == nil ? plan.window : nil, rate: plan.rate, mix: plan.mix.description,
            warmupS: plan.warmup, durationS: plan.duration, measuredS: measured, cardsPerBoard: plan.cardsPerBoard,
            users: publishers.users.union(subscribers.users).count + idle.tally.connected, serverRateOpsPerS: publishers.rateOpsPerS,
            opsAcked: acked, opsPerS: perSecond(acked), sent: publishers.sent, slotsHeldBack: publishers.slotsHeldBack,
            slotsUnsent: publishers.slotsUnsent, opsUnanswered: publishers.unanswered, deliveries: deliveries,
            deliveriesPerS: perSecond(deliveries), ackMs: latency(publishers.latency),
            fanoutMs: latency(subscribers.fanout), fanoutOverruns: subscribers.fanoutOverruns,
            errors: errors, bytesIn: publishers.bytes.received + subscribers.bytes.received,
            bytesOut: publishers.bytes.sent + subscribers.bytes.sent,
            publishersConnected: publishers.publishersConnected, publishersCompleted: publishers.publishersCompleted,
            subscribersConnected: subscribers.subscribersConnected, subscribersCompleted: subscribers.subscribersCompleted,
            seq: Summary.SeqFigures(
                subscribers: subscribers.subscribersConnected, contiguous: subscribers.seqBroken == 0,
                clientsBroken: subscribers.seqBroken, gaps: subscribers.gaps, duplicates: subscribers.duplicates),
            convergence: Summary.ConvergenceFigures(
                converged: converged, catchUpS: catchUpSeconds, behindAtEnd: behindAtEnd, error: checkError,
                boards: verdicts),
            cpu: cpu, idle: idleSummary, ok: succeeded,
            failedClients: Array((publishers.failed + subscribers.failed).prefix(100)))
        summary.verdict = summary.verdictText
        return summary
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
