import BoardTransport
import Foundation
import BoardWire
import NIOCore

/// One simulated publisher: a real TLS connection that says hello with its own `client_id` (ending in `-p<N>`),
/// waits at the start gate, then keeps `window` ops in flight (or sends at its share of `--rate`) until the end of
/// sending, spreading them over the boards. It does not subscribe; it reads acks, rejects and pings.
struct Publisher: Sendable {
    let number: Int
    let connection: Int
    let plan: LoadPlan
    let live: LiveCounters
    let gate: StartGate
    let fanout: FanoutTable

    typealias Lines = NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    typealias Writer = NIOAsyncChannelOutboundWriter<ByteBuffer>

    /// Runs the publisher; `connected` is told once it is ready (or has failed). Never throws: failures are counted.
    func run(group: any EventLoopGroup, connected: AsyncStream<Void>.Continuation) async -> ClientTally {
        var tally = ClientTally()
        var signalled = false
        let target = plan.target(connection)
        let name = "publisher " + plan.clientName(connection)
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
                    target, clientID: plan.clientID(connection), subscribe: nil, lines: &lines, outbound: outbound,
                    bytes: &tally.bytes)
                handshakeDeadline.cancel()
                tally.publishersConnected = 1
                tally.users.insert(opened.user)
                tally.rateOpsPerS = opened.rateOpsPerS
                connected.yield()
                signalled = true

                let start = await gate.awaitStart()
                let drainDeadline = raw.eventLoop.scheduleTask(
                    deadline: .uptimeNanoseconds(start.timeline.sendEnd) + .seconds(LoadPlan.drainTimeoutSeconds)
                ) { raw.close(promise: nil) }
                defer { drainDeadline.cancel() }
                try await drive(&lines, outbound, start: start, tally: &tally)
                tally.bytes.sent += Handshake.bye.readableBytes
                try await outbound.write(Handshake.bye)
                tally.publishersCompleted = 1
            }
        } catch let error as LoadError {
            tally.fail(error.code, client: name, error.description)
            live.errors.add(1, ordering: .relaxed)
        } catch let error as TransportError {
            tally.fail(error.wireCode?.rawValue ?? (signalled ? "connection_lost" : "connect_failed"), client: name, LoadError.describe(error))
            live.errors.add(1, ordering: .relaxed)
        } catch {
            let code = signalled ? "connection_lost" : "connect_failed"
            tally.fail(code, client: name, "\(code): \(LoadError.describe(error))")
            live.errors.add(1, ordering: .relaxed)
        }
        if !signalled { connected.yield() }
        live.ended.add(1, ordering: .relaxed)
        return tally
    }

    /// The loop: send what the window (and pacing) allows, read one line, account for it, repeat; ends when sending
    /// is over and every op has been answered.
    private func drive(_ lines: inout Lines, _ outbound: Writer, start: RunStart, tally: inout ClientTally) async throws {
        let timeline = start.timeline
        let publishers = max(1, plan.layout.publishers)
        let interval = plan.rate.map { UInt64(Double(publishers) / $0 * 1e9) } ?? 0
        var window = OpWindow(
            window: plan.rate == nil ? plan.window : max(plan.window, 64), intervalNs: interval,
            phaseNs: interval / UInt64(publishers) * UInt64(number),
            source: OpSource(boards: plan.boards, mix: plan.mix, run: plan.runID, publisher: number, cardsPerBoard: plan.cardsPerBoard))
        defer {
            tally.slotsHeldBack = window.heldBack
            tally.slotsUnsent = window.unsentSlots(sendEnd: timeline.sendEnd)
            tally.unanswered = window.inflight.count
        }
        func send(_ now: UInt64) async throws {
            let due = window.due(now: now, sendEnd: timeline.sendEnd)
            guard !due.isEmpty else { return }
            var buffers: [ByteBuffer] = []
            buffers.reserveCapacity(due.count)
            for item in due {
                fanout.sending(publisher: number, mut: item.mut, at: item.dueNs, subscribers: start.subscribers[item.op.board])
                tally.sent[item.op.purges ? "purge" : item.op.kind.rawValue, default: 0] += 1
                tally.bytes.sent += item.op.line.readableBytes
                buffers.append(item.op.line)
            }
            try await outbound.write(contentsOf: buffers)
        }
        while true {
            var now = NIODeadline.now().uptimeNanoseconds
            try await send(now)
            switch window.step(now: now, sendEnd: timeline.sendEnd) {
            case .done: return
            case .sleep(let until):
                try await Task.sleep(nanoseconds: until - now)
                continue
            case .read: break
            }
            guard let line = try await lines.next() else {
                let late = NIODeadline.now().uptimeNanoseconds >= timeline.sendEnd
                let unanswered = window.inflight.prefix(8).map { "mut \($0.mut) on \(plan.boards[$0.board])" }
                try? FileHandle.standardError.write(contentsOf: Data(
                    "publisher \(plan.clientID(connection)): the connection ended with \(window.inflight.count) op(s) unanswered: \(unanswered.joined(separator: ", "))\n".utf8))
                throw LoadError(late ? "drain_timeout" : "closed", "the connection ended with ops in flight")
            }
            now = NIODeadline.now().uptimeNanoseconds
            tally.bytes.received += line.readableBytes + 1
            let scanned = ServerLine(line)
            switch scanned.kind {
            case .ack:
                guard let mut = scanned.mut, let sent = window.acked(mut) else {
                    tally.count("unexpected_ack")
                    break
                }
                tally.ackedTotal += 1
                // Throughput counts the acks that arrived in the measured window (as deliveries count the deltas
                // that did); latency, the ops whose slot was in it. Counted by slot, a server that fell behind
                // showed its backlog's acks as warm-up: 5,161 ops/s beside 8,600 delivered a second.
                if timeline.measures(now) { tally.acked += 1 }
                if timeline.measures(sent) { tally.latency.record((now - sent) / 1_000) }
                live.acked.add(1, ordering: .relaxed)
            case .reject:
                guard case .reject(let reject) = try? Handshake.coder.decodeServer(line.readableBytesView) else {
                    tally.count("bad_reject")
                    break
                }
                tally.count(reject.code.rawValue)
                live.errors.add(1, ordering: .relaxed)
                if !window.rejected(reject.mut, retryAfterMs: reject.retryAfterMs, now: now, sendEnd: timeline.sendEnd) {
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
                tally.bytes.sent += Handshake.pong.readableBytes
                try await outbound.write(Handshake.pong)
            case .bye:
                throw LoadError("bye", "the server said bye during the run")
            case .delta, .welcome, .subscribed, .other:
                break
            }
        }
    }
}
