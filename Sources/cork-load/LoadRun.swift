import Foundation
import NIOCore
import NIOPosix

/// One run: opens the idle connections (measuring the server's RSS around them), connects the subscribers and the
/// publishers, starts them together, prints a progress line a second, then checks convergence and gathers what
/// every client measured.
struct LoadRun {
    let plan: LoadPlan
    /// Where progress lines go (standard error, so that `--json` leaves standard output to the report).
    let progress: @Sendable (String) -> Void

    private enum Outcome: Sendable {
        case publisher(ClientTally)
        case subscriber(ClientTally)
        case idle(IdleClient.Tally)
    }

    /// Runs the plan to the end and returns the report.
    func run() async -> LoadReport {
        let group = MultiThreadedEventLoopGroup.singleton
        let live = LiveCounters()
        let gate = StartGate()
        let plan = self.plan
        let layout = plan.layout
        let fanout = FanoutTable(publishers: layout.publishers)
        let window = RunWindow()
        var report = LoadReport(plan: plan)
        let subscribers = (0..<layout.boards * layout.subscribersPerBoard).map {
            SubscriberProgress(board: $0 / max(1, layout.subscribersPerBoard))
        }
        return await withTaskGroup(of: Outcome.self, returning: LoadReport.self) { tasks in
            let (signals, signal) = AsyncStream.makeStream(of: Void.self)
            var ready = signals.makeAsyncIterator()
            var opening = 0
            func admit() async {
                if opening >= LoadPlan.connectConcurrency {
                    _ = await ready.next()
                    opening -= 1
                }
                opening += 1
            }
            func settleOpening() async {
                while opening > 0 {
                    _ = await ready.next()
                    opening -= 1
                }
            }

            if layout.idle > 0 {
                report.idle.rssBeforeKib = plan.serverPID.flatMap(ProcStats.rssKiB)
                let first = layout.publishers + layout.boards * layout.subscribersPerBoard
                for i in 0..<layout.idle {
                    await admit()
                    let client = IdleClient(index: i, target: plan.target(first + i), plan: plan, gate: gate)
                    tasks.addTask { .idle(await client.run(group: group, connected: signal)) }
                }
                await settleOpening()
                // Every join is announced to every subscriber (O(n²) presence lines): let the server finish that
                // fan-out, so that its RSS holds connections and not queued writes.
                let settled = await settle()
                report.idle.rssAfterKib = plan.serverPID.flatMap(ProcStats.rssKiB)
                progress("idle: \(layout.idle) connections opened; server CPU settled after \(settled) s")
            }

            for (i, subscriberProgress) in subscribers.enumerated() {
                await admit()
                let client = Subscriber(
                    board: i / layout.subscribersPerBoard, index: i % layout.subscribersPerBoard,
                    connection: layout.publishers + i, plan: plan, live: live, window: window, fanout: fanout,
                    progress: subscriberProgress)
                tasks.addTask { .subscriber(await client.run(group: group, connected: signal)) }
            }
            for p in 0..<layout.publishers {
                await admit()
                let client = Publisher(number: p, connection: p, plan: plan, live: live, gate: gate, fanout: fanout)
                tasks.addTask { .publisher(await client.run(group: group, connected: signal)) }
            }
            await settleOpening()
            signal.finish()
            var counts = [Int](repeating: 0, count: layout.boards)
            for subscriber in subscribers where subscriber.subscribed.load(ordering: .acquiring) { counts[subscriber.board] += 1 }
            progress("connected: \(counts.reduce(0, +))/\(subscribers.count) subscribers on \(layout.boards) board(s); starting \(layout.publishers) publisher(s)")

            let timeline = Timeline(now: NIODeadline.now().uptimeNanoseconds, warmup: plan.warmup, duration: plan.duration)
            window.open(timeline)
            await gate.open(RunStart(timeline: timeline, subscribers: counts))
            await watch(timeline, live: live, report: &report)

            var publishersDone = 0
            var ended = false
            if layout.publishers == 0 {
                await end(subscribers, group: group, report: &report)
                ended = true
            }
            for await outcome in tasks {
                switch outcome {
                case .publisher(let tally):
                    report.publishers.merge(tally)
                    publishersDone += 1
                    if publishersDone == layout.publishers, !ended {
                        await end(subscribers, group: group, report: &report)
                        ended = true
                    }
                case .subscriber(let tally): report.subscribers.merge(tally)
                case .idle(let tally): report.idle.tally.merge(tally)
                }
            }
            report.idle.connectedAtEnd = report.idle.tally.completed
            report.verdicts = judge(report)
            return report
        }
    }

    /// The end, once every publisher has finished: takes the server's state of every board, lets each subscriber
    /// catch up to the server's seq (or gives up after the drain timeout), then closes them.
    private func end(_ subscribers: [SubscriberProgress], group: any EventLoopGroup, report: inout LoadReport) async {
        // The catch-up is timed from the last publisher's end, through the read of the server's state: subscribers
        // that are behind go on reading meanwhile.
        let started = NIODeadline.now()
        // The check reads as the first account; one refused meanwhile (revoked, its sessions all taken) leaves the
        // check to the next accounts given, which can read the boards as well when they are members.
        var accounts = [plan.checker]
        for target in plan.targets where !accounts.contains(where: { $0.token == target.token }) && accounts.count < 4 {
            accounts.append(target)
        }
        for (index, account) in accounts.enumerated() {
            do {
                report.serverBoards = try await Convergence.serverState(
                    account, boards: plan.boards, clientID: "check-\(plan.runID)", group: group)
                report.checkError = nil
                if index > 0 { progress("check: read the server's boards with account #\(index + 1) (the first was refused)") }
                break
            } catch {
                report.checkError = LoadError.describe(error)
                progress("check: could not read the server's boards: \(LoadError.describe(error))")
                let code = (error as? LoadError)?.code ?? ""
                guard ["token_revoked", "auth_failed", "server_full", "token_expired"].contains(code) else { break }
            }
        }
        if let boards = report.serverBoards {
            // A subscriber whose connection ended, or whose board the server would not show, cannot catch up: it is
            // not waited for (the convergence check judges it).
            func behind() -> Int {
                subscribers.filter {
                    $0.subscribed.load(ordering: .acquiring) && !$0.ended.load(ordering: .acquiring)
                        && boards[$0.board].refused == nil && $0.lastSeq.load(ordering: .relaxed) < boards[$0.board].seq
                }.count
            }
            var left = behind()
            while left > 0, NIODeadline.now() < started + .seconds(LoadPlan.drainTimeoutSeconds) {
                try? await Task.sleep(for: .milliseconds(10))
                left = behind()
            }
            let waited = Double((NIODeadline.now() - started).nanoseconds) / 1e9
            if left == 0 {
                report.catchUpSeconds = waited
                progress(String(format: "end: subscribers caught up with the server %.3f s after the last publisher finished", waited))
            } else {
                report.behindAtEnd = left
                progress("end: \(left) subscriber(s) still behind the server \(LoadPlan.drainTimeoutSeconds) s after the last publisher finished")
            }
        }
        for subscriber in subscribers { subscriber.close() }
    }

    /// Each board's convergence verdict.
    private func judge(_ report: LoadReport) -> [Convergence.Verdict] {
        guard let boards = report.serverBoards else { return [] }
        return plan.boards.enumerated().map { index, name in
            Convergence.judge(
                board: name, server: boards[index],
                reference: report.subscribers.references.first { $0.board == index },
                streams: report.subscribers.streams.filter { $0.board == index },
                expected: plan.layout.subscribersPerBoard)
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
            // Every client's connection ended early (the server stopped): nothing is left to measure.
            let clients = plan.layout.publishers + plan.layout.boards * plan.layout.subscribersPerBoard
            if clients > 0, second < seconds, live.ended.load(ordering: .relaxed) >= clients {
                progress("every client's connection has ended; the run stops early")
                // The figures are per second of what was measured, not of the whole --duration.
                report.measuredSeconds = max(0, second - plan.warmup)
                if report.cpuStart != nil { report.cpuEnd = sampleCPU() }
                return
            }
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
            processes: ProcStats.allProcesses())
    }

    private func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
