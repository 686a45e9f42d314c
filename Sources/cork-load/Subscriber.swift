import BoardTransport
import BoardWire
import NIOCore
import Synchronization

/// Where a subscriber has got to, shared with the run: the last seq it applied, and a way to end it.
final class SubscriberProgress: Sendable {
    let board: Int
    let lastSeq = Atomic<UInt64>(0)
    let subscribed = Atomic<Bool>(false)
    private let state = Mutex<(channel: (any Channel)?, closing: Bool)>((nil, false))

    init(board: Int) { self.board = board }

    /// The connection to close at the end.
    func attach(_ channel: any Channel) {
        let closing = state.withLock { state in
            state.channel = channel
            return state.closing
        }
        if closing { channel.close(promise: nil) }
    }

    /// Ends the subscriber: its read loop sees the end of the stream and returns what it measured.
    func close() {
        let channel = state.withLock { state in
            state.closing = true
            return state.channel
        }
        channel?.close(promise: nil)
    }

    var isClosing: Bool { state.withLock { $0.closing } }
}

/// One simulated subscriber: a real TLS connection with its own `client_id` that subscribes to one board and reads
/// every delta until the run closes it. Per delta it checks the seq, adds the line to its `StreamHash`, and counts
/// itself off the op's fan-out; the board's first subscriber also keeps every line for the reference replay.
struct Subscriber: Sendable {
    let board: Int
    let index: Int
    let connection: Int
    let plan: LoadPlan
    let live: LiveCounters
    let gate: StartGate
    let fanout: FanoutTable
    let progress: SubscriberProgress

    var isReference: Bool { index == 0 }

    /// Runs until `progress.close()`; `connected` is told once subscribed (or failed). Never throws.
    func run(group: any EventLoopGroup, connected: AsyncStream<Void>.Continuation) async -> ClientTally {
        var tally = ClientTally()
        var signalled = false
        let target = plan.target(connection)
        do {
            let channel = try await Transport.connect(
                host: target.host, port: target.port, group: group, tls: target.tls, limits: .client)
            let raw = channel.channel
            progress.attach(raw)
            try await channel.executeThenClose { inbound, outbound in
                let handshakeDeadline = raw.eventLoop.scheduleTask(in: .seconds(LoadPlan.connectTimeoutSeconds)) {
                    raw.close(promise: nil)
                }
                var lines = inbound.makeAsyncIterator()
                let opened = try await Handshake.open(
                    target, clientID: plan.clientID(connection), subscribe: plan.boards[board], keepSnapshot: isReference,
                    lines: &lines, outbound: outbound, bytes: &tally.bytes)
                handshakeDeadline.cancel()
                let seq = opened.seq ?? 0
                progress.lastSeq.store(seq, ordering: .relaxed)
                progress.subscribed.store(true, ordering: .releasing)
                tally.subscribersConnected = 1
                tally.users.insert(opened.user)
                connected.yield()
                signalled = true
                var reference = isReference ? ReferenceLog(board: board, snapshot: opened.board, subscribedSeq: seq) : nil
                var check = SeqCheck(subscribedAt: seq)
                var hash = StreamHash()
                defer {
                    tally.seqBroken = check.isContiguous ? 0 : 1
                    tally.gaps = check.gaps
                    tally.duplicates = check.duplicates
                    tally.streams = [StreamRecord(board: board, subscribedSeq: seq, lastSeq: check.last, hash: hash)]
                    if let reference { tally.references = [reference] }
                }
                let timeline = await gate.awaitStart().timeline
                try await read(&lines, outbound, timeline: timeline, check: &check, hash: &hash, reference: &reference, tally: &tally)
                tally.subscribersCompleted = 1
            }
        } catch let error as LoadError {
            tally.count(error.code)
        } catch let error as TransportError {
            tally.count(error.wireCode?.rawValue ?? "transport")
        } catch {
            tally.count(signalled ? "connection_lost" : "connect_failed")
        }
        if !signalled { connected.yield() }
        return tally
    }

    private func read(
        _ lines: inout NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator, _ outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>,
        timeline: Timeline, check: inout SeqCheck, hash: inout StreamHash, reference: inout ReferenceLog?,
        tally: inout ClientTally
    ) async throws {
        var unflushed = 0
        defer { live.deliveries.add(unflushed, ordering: .relaxed) }
        while true {
            let line: ByteBuffer?
            do { line = try await lines.next() } catch {
                if progress.isClosing { return }
                throw error
            }
            guard let line else {
                if progress.isClosing { return }
                throw LoadError("closed", "the server closed a subscriber's connection")
            }
            let now = NIODeadline.now().uptimeNanoseconds
            tally.bytes.received += line.readableBytes + 1
            let scanned = ServerLine(line)
            switch scanned.kind {
            case .delta:
                guard let seq = scanned.seq else {
                    tally.count("bad_delta")
                    break
                }
                check.saw(seq)
                line.withUnsafeReadableBytes { hash.add($0) }
                if reference != nil { keep(line, seq: seq, in: &reference) }
                progress.lastSeq.store(seq, ordering: .relaxed)
                tally.deliveriesTotal += 1
                if timeline.measures(now) { tally.deliveries += 1 }
                unflushed += 1
                if unflushed == 256 {
                    live.deliveries.add(unflushed, ordering: .relaxed)
                    unflushed = 0
                }
                if let publisher = scanned.publisher, let mut = scanned.mut {
                    switch fanout.received(publisher: publisher, mut: mut, at: now) {
                    case .pending: break
                    case .complete(let latency, let sent):
                        if timeline.measures(sent) { tally.fanout.record(latency / 1_000) }
                    case .overrun: tally.fanoutOverruns += 1
                    }
                }
            case .ping:
                tally.bytes.sent += Handshake.pong.readableBytes
                try await outbound.write(Handshake.pong)
            case .error:
                let error = Handshake.error(line)
                if let decoded = try? Handshake.coder.decodeServer(line.readableBytesView), case .error(let e) = decoded,
                    !e.closesConnection
                {
                    tally.count(e.code.rawValue)
                    break
                }
                throw error
            case .bye:
                if progress.isClosing { return }
                throw LoadError("bye", "the server said bye during the run")
            case .ack, .reject, .welcome, .subscribed, .other:
                break
            }
        }
    }

    private func keep(_ line: ByteBuffer, seq: UInt64, in reference: inout ReferenceLog?) {
        guard var log = reference, !log.truncated else { return }
        reference = nil  // keep the log uniquely referenced while it grows
        if log.bytes.count + line.readableBytes > plan.replayBytesMax {
            log.truncated = true
        } else {
            log.bytes.append(contentsOf: line.readableBytesView)
            log.ends.append(log.bytes.count)
            log.seqs.append(seq)
        }
        reference = log
    }
}
