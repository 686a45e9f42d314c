import BoardTransport
import BoardWire
import NIOCore

/// One simulated client: a real TLS connection that says hello (with its own `client_id`), subscribes when asked,
/// waits at the start gate, then keeps `window` ops in flight until the end of the run.
struct LoadClient: Sendable {
    let index: Int
    let target: Target
    let plan: LoadPlan
    let subscribes: Bool
    let live: LiveCounters
    let gate: StartGate

    typealias Lines = NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    typealias Writer = NIOAsyncChannelOutboundWriter<ByteBuffer>

    /// Runs the client; `connected` is told once it is ready (or has failed). Never throws: failures are counted.
    func run(group: any EventLoopGroup, connected: AsyncStream<Void>.Continuation) async -> ClientTally {
        var tally = ClientTally()
        var signalled = false
        do {
            let channel = try await Transport.connect(
                host: target.host, port: target.port, group: group, tls: target.tls, limits: .client)
            let raw = channel.channel
            try await channel.executeThenClose { inbound, outbound in
                let handshakeDeadline = raw.eventLoop.scheduleTask(in: .seconds(LoadPlan.connectTimeoutSeconds)) {
                    raw.close(promise: nil)
                }
                var lines = inbound.makeAsyncIterator()
                let opened = try await Handshake.open(
                    target, clientID: "load-\(plan.runID)-\(index)", subscribe: subscribes, measureBoard: index == 0, lines: &lines,
                    outbound: outbound, bytes: &tally.bytes)
                handshakeDeadline.cancel()
                tally.connected = 1
                tally.users.insert(opened.user)
                tally.rateOpsPerS = opened.rateOpsPerS
                tally.boardSeq = opened.seq
                tally.boardCards = opened.cards
                connected.yield()
                signalled = true

                let timeline = await gate.awaitStart()
                let drainDeadline = raw.eventLoop.scheduleTask(
                    deadline: .uptimeNanoseconds(timeline.sendEnd) + .seconds(LoadPlan.drainTimeoutSeconds)
                ) { raw.close(promise: nil) }
                defer { drainDeadline.cancel() }
                var seqCheck = opened.seq.map { SeqCheck(subscribedAt: $0) }
                defer {
                    if let seqCheck {
                        tally.subscribed = 1
                        tally.gaps = seqCheck.gaps
                        tally.duplicates = seqCheck.duplicates
                        tally.seqBroken = seqCheck.isContiguous ? 0 : 1
                    }
                }
                try await drive(&lines, outbound, timeline: timeline, seqCheck: &seqCheck, tally: &tally)
                tally.bytes.sent += Handshake.bye.readableBytes
                try await outbound.write(Handshake.bye)
                tally.completed = 1
            }
        } catch let error as LoadError {
            tally.count(error.code)
        } catch let error as TransportError {
            tally.count(error.wireCode?.rawValue ?? "transport")
        } catch {
            tally.count(signalled ? "connection_lost" : "connect_failed")
        }
        if !signalled { connected.yield() }
        live.finished.add(1, ordering: .relaxed)
        return tally
    }

    /// The closed loop: send what the window allows, read one line, account for it, repeat; ends when sending is
    /// over and every op has been answered.
    private func drive(
        _ lines: inout Lines, _ outbound: Writer, timeline: Timeline, seqCheck: inout SeqCheck?,
        tally: inout ClientTally
    ) async throws {
        let interval = plan.rate.map { UInt64(Double(plan.clients) / $0 * 1e9) } ?? 0
        var window = OpWindow(
            window: plan.window, intervalNs: interval,
            source: OpSource(board: target.board, run: plan.runID, client: index, cards: plan.cardsPerClient))
        var unflushedDeliveries = 0
        defer { live.deliveries.add(unflushedDeliveries, ordering: .relaxed) }
        try await send(window.due(now: NIODeadline.now().uptimeNanoseconds, sendEnd: timeline.sendEnd), outbound, &tally)
        while true {
            var now = NIODeadline.now().uptimeNanoseconds
            if window.isIdle, now >= timeline.sendEnd { return }
            if let wake = window.wakeUp(now: now, sendEnd: timeline.sendEnd) {
                try await Task.sleep(nanoseconds: wake - now)
                now = NIODeadline.now().uptimeNanoseconds
                try await send(window.due(now: now, sendEnd: timeline.sendEnd), outbound, &tally)
                continue
            }
            guard let line = try await lines.next() else {
                let late = NIODeadline.now().uptimeNanoseconds >= timeline.sendEnd
                throw LoadError(late ? "drain_timeout" : "closed", "the connection ended with ops in flight")
            }
            now = NIODeadline.now().uptimeNanoseconds
            tally.bytes.received += line.readableBytes + 1
            let scanned = ServerLine(line)
            switch scanned.kind {
            case .delta:
                tally.deliveriesTotal += 1
                if timeline.measures(now) { tally.deliveries += 1 }
                if let seq = scanned.seq { seqCheck?.saw(seq) }
                unflushedDeliveries += 1
                if unflushedDeliveries == 256 {
                    live.deliveries.add(unflushedDeliveries, ordering: .relaxed)
                    unflushedDeliveries = 0
                }
            case .ack:
                guard let mut = scanned.mut, let sent = window.acked(mut) else {
                    tally.count("unexpected_ack")
                    break
                }
                tally.ackedTotal += 1
                if timeline.measures(now) {
                    tally.acked += 1
                    tally.latency.record((now - sent) / 1_000)
                }
                live.acked.add(1, ordering: .relaxed)
                live.deliveries.add(unflushedDeliveries, ordering: .relaxed)
                unflushedDeliveries = 0
            case .reject:
                guard case .reject(let reject) = try? Handshake.coder.decodeServer(line.readableBytesView) else {
                    tally.count("bad_reject")
                    break
                }
                tally.count(reject.code.rawValue)
                live.errors.add(1, ordering: .relaxed)
                if !window.rejected(reject.mut, retryAfterMs: reject.retryAfterMs, now: now) {
                    tally.count("unexpected_reject")
                }
            case .error:
                guard case .error(let error) = try? Handshake.coder.decodeServer(line.readableBytesView) else {
                    tally.count("bad_error")
                    break
                }
                if error.closesConnection { throw LoadError(error.code.rawValue, error.message) }
                tally.count(error.code.rawValue)
                live.errors.add(1, ordering: .relaxed)
                if let mut = error.mut { _ = window.rejected(mut, retryAfterMs: nil, now: now) }
            case .ping:
                try await send([Handshake.pong], outbound, &tally)
            case .bye:
                throw LoadError("bye", "the server said bye during the run")
            case .welcome, .subscribed, .other:
                break
            }
            try await send(window.due(now: now, sendEnd: timeline.sendEnd), outbound, &tally)
        }
    }

    private func send(_ lines: [ByteBuffer], _ outbound: Writer, _ tally: inout ClientTally) async throws {
        guard !lines.isEmpty else { return }
        for line in lines { tally.bytes.sent += line.readableBytes }
        try await outbound.write(contentsOf: lines)
    }
}
