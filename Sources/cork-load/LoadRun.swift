import Foundation
import NIOCore
import NIOPosix

/// One run: opens the idle connections (measuring the server's RSS around them), connects the active clients,
/// starts them together, prints a progress line a second, and gathers what every client measured.
struct LoadRun {
    let plan: LoadPlan
    /// Where progress lines go (standard error, so that `--json` leaves standard output to the report).
    let progress: @Sendable (String) -> Void

    private enum Outcome: Sendable {
        case active(ClientTally)
        case idle(IdleClient.Tally)
    }

    /// Runs the plan to the end and returns the report.
    func run() async -> LoadReport {
        let group = MultiThreadedEventLoopGroup.singleton
        let live = LiveCounters()
        let gate = StartGate()
        let plan = self.plan
        var report = LoadReport(plan: plan)
        return await withTaskGroup(of: Outcome.self, returning: LoadReport.self) { tasks in
            let (signals, signal) = AsyncStream.makeStream(of: Void.self)
            var ready = signals.makeAsyncIterator()
            var opening = 0

            if plan.idle > 0 {
                report.idle.rssBeforeKib = plan.serverPID.flatMap(ProcStats.rssKiB)
                for i in 0..<plan.idle {
                    if opening >= LoadPlan.connectConcurrency {
                        _ = await ready.next()
                        opening -= 1
                    }
                    let client = IdleClient(index: i, target: plan.targets[i % plan.targets.count], plan: plan, gate: gate)
                    tasks.addTask { .idle(await client.run(group: group, connected: signal)) }
                    opening += 1
                }
                while opening > 0 {
                    _ = await ready.next()
                    opening -= 1
                }
                // Every join is announced to every subscriber (O(n²) presence lines): let the server finish that
                // fan-out, so that its RSS holds connections and not queued writes.
                let settled = await settle()
                report.idle.rssAfterKib = plan.serverPID.flatMap(ProcStats.rssKiB)
                progress("idle: \(plan.idle) connections opened; server CPU settled after \(settled) s")
            }

            for i in 0..<plan.clients {
                if opening >= LoadPlan.connectConcurrency {
                    _ = await ready.next()
                    opening -= 1
                }
                let client = LoadClient(
                    index: i, target: plan.targets[(plan.idle + i) % plan.targets.count], plan: plan,
                    subscribes: i < plan.subscribers, live: live, gate: gate)
                tasks.addTask { .active(await client.run(group: group, connected: signal)) }
                opening += 1
            }
            while opening > 0 {
                _ = await ready.next()
                opening -= 1
            }
            signal.finish()

            let timeline = Timeline(now: NIODeadline.now().uptimeNanoseconds, warmup: plan.warmup, duration: plan.duration)
            await gate.open(timeline)
            await watch(timeline, live: live, report: &report)

            for await outcome in tasks {
                switch outcome {
                case .active(let tally): report.active.merge(tally)
                case .idle(let tally): report.idle.tally.merge(tally)
                }
            }
            report.idle.connectedAtEnd = report.idle.tally.completed
            return report
        }
    }

    /// Prints a line a second until the end of sending, and reads both processes' CPU time at the edges of the
    /// measured window.
    private func watch(_ timeline: Timeline, live: LiveCounters, report: inout LoadReport) async {
        let seconds = plan.warmup + plan.duration
        var last = (acked: 0, deliveries: 0, errors: 0)
        if plan.warmup == 0 { report.cpuStart = sampleCPU() }
        guard seconds > 0 else { return }
        for second in 1...seconds {
            let tick = timeline.start + UInt64(second) * 1_000_000_000
            let now = NIODeadline.now().uptimeNanoseconds
            if tick > now { try? await Task.sleep(nanoseconds: tick - now) }
            if second == plan.warmup { report.cpuStart = sampleCPU() }
            if second == seconds { report.cpuEnd = sampleCPU() }
            let current = (
                acked: live.acked.load(ordering: .relaxed), deliveries: live.deliveries.load(ordering: .relaxed),
                errors: live.errors.load(ordering: .relaxed)
            )
            let phase = second <= plan.warmup ? "warm-up" : "measure"
            progress(
                "[\(pad(second, 3))s] \(phase)  acked \(pad(current.acked - last.acked, 8)) ops/s  deliveries "
                    + "\(pad(current.deliveries - last.deliveries, 9))/s  rejects+errors \(pad(current.errors - last.errors, 6))")
            last = current
        }
    }

    /// Waits until the server has used less than 20 ms of CPU in half a second (at most 30 s, at least 1 s);
    /// returns the seconds waited.
    private func settle() async -> Double {
        var waited = 0.0
        var last = plan.serverPID.flatMap(ProcStats.cpuSeconds)
        while waited < 30 {
            try? await Task.sleep(for: .milliseconds(500))
            waited += 0.5
            let now = plan.serverPID.flatMap(ProcStats.cpuSeconds)
            if waited >= 1, let a = last, let b = now, b - a < 0.02 { break }
            if now == nil, waited >= 1 { break }
            last = now
        }
        return waited
    }

    private func sampleCPU() -> LoadReport.CPUSample {
        LoadReport.CPUSample(
            server: plan.serverPID.flatMap(ProcStats.cpuSeconds), load: ProcStats.cpuSeconds(ProcStats.ownPID),
            machine: ProcStats.machineBusySeconds())
    }

    private func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
