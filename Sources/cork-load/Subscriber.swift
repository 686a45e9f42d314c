import BoardCore
import BoardTransport
import BoardWire
import NIOCore
import Synchronization

/// Where a subscriber has got to, shared with the run: the last seq it applied, and a way to end it.
final class SubscriberProgress: Sendable {
    let board: Int
    let lastSeq = Atomic<UInt64>(0)
    let subscribed = Atomic<Bool>(false)
    /// Its connection has ended (closed by the run, or lost): it will not catch up.
    let ended = Atomic<Bool>(false)
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

/// The measured window as atomics, for code on event loops that cannot wait for the start gate; zero until the run
/// starts.
final class RunWindow: Sendable {
    private let measureStart = Atomic<UInt64>(0)
    private let sendEnd = Atomic<UInt64>(0)

    func open(_ timeline: Timeline) {
        measureStart.store(timeline.measureStart, ordering: .relaxed)
        sendEnd.store(timeline.sendEnd, ordering: .releasing)
    }

    /// Whether `instant` falls in the measured window (false before the start).
    func measures(_ instant: UInt64) -> Bool {
        let end = sendEnd.load(ordering: .acquiring)
        return end != 0 && instant >= measureStart.load(ordering: .relaxed) && instant < end
    }
}

/// One simulated subscriber: a real TLS connection with its own `client_id` that subscribes to one board and reads
/// every delta until the run closes it.
///
/// Its lines are handled by `SubscriberHandler` on the connection's event loop, not through an async sequence: with
/// a thousand subscribers every delta is handled a thousand times, and a task switch per line would make cork-load,
/// not corkd, the bottleneck.
struct Subscriber: Sendable {
    let board: Int
    let index: Int
    let connection: Int
    let plan: LoadPlan
    let live: LiveCounters
    let window: RunWindow
    let fanout: FanoutTable
    let progress: SubscriberProgress

    /// Runs until `progress.close()`; `connected` is told once subscribed (or failed). Never throws.
    func run(group: any EventLoopGroup, connected: AsyncStream<Void>.Continuation) async -> ClientTally {
        let target = plan.target(connection)
        let loop = group.next()
        let ready = loop.makePromise(of: Void.self)
        let done = loop.makePromise(of: ClientTally.self)
        let settings = SubscriberHandler.Settings(
            board: board, boardName: plan.boards[board], clientID: plan.clientID(connection), token: target.token,
            isReference: index == 0, replayBytesMax: plan.replayBytesMax,
            name: "subscriber \(plan.clientName(connection)) on \(plan.boards[board])")
        let (live, window, fanout, progress) = (self.live, self.window, self.fanout, self.progress)
        var failure = ClientTally()
        do {
            let channel = try await Transport.connect(
                host: target.host, port: target.port, group: group, tls: target.tls, limits: .client,
                makeHandler: {
                    SubscriberHandler(
                        settings: settings, live: live, window: window, fanout: fanout, progress: progress, ready: ready, done: done)
                })
            progress.attach(channel)
            let deadline = channel.eventLoop.scheduleTask(in: .seconds(LoadPlan.connectTimeoutSeconds)) { channel.close(promise: nil) }
            defer { deadline.cancel() }
            try await ready.futureResult.get()
        } catch let error as LoadError {
            failure.fail(error.code, client: settings.name, error.description)
        } catch let error as TransportError {
            failure.fail(error.wireCode?.rawValue ?? "connect_failed", client: settings.name, LoadError.describe(error))
        } catch {
            failure.fail("connect_failed", client: settings.name, "connect_failed: \(LoadError.describe(error))")
        }
        connected.yield()
        // The handler completes `done` when its channel closes; a connection that never got that far completes it
        // here (a second completion of a promise is ignored).
        if !failure.errors.isEmpty {
            ready.fail(LoadError("connect_failed", "not subscribed"))
            done.succeed(failure)
            progress.close()
        }
        return (try? await done.futureResult.get()) ?? failure
    }
}

/// A subscriber's lines, on its event loop: `hello`, `subscribe`, then every delta until the run closes it. Per
/// delta it checks the seq, adds the line to its `StreamHash`, and counts itself off the op's fan-out; the board's
/// first subscriber also keeps every line for the reference replay.
final class SubscriberHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    struct Settings: Sendable {
        var board: Int
        var boardName: String
        var clientID: String
        var token: String
        var isReference: Bool
        var replayBytesMax: Int
        /// How the report names this client when it fails.
        var name = ""
    }

    private enum Phase { case welcoming, subscribing, streaming, finished }

    private let settings: Settings
    private let live: LiveCounters
    private let window: RunWindow
    private let fanout: FanoutTable
    private let progress: SubscriberProgress
    private let ready: EventLoopPromise<Void>
    private let done: EventLoopPromise<ClientTally>
    private var phase = Phase.welcoming
    private var tally = ClientTally()
    private var check = SeqCheck(subscribedAt: 0)
    private var hash = StreamHash()
    private var subscribedSeq: UInt64 = 0
    private var snapshot: Board?
    private var reference: ReferenceLog?
    private var unflushed = 0

    init(
        settings: Settings, live: LiveCounters, window: RunWindow, fanout: FanoutTable, progress: SubscriberProgress,
        ready: EventLoopPromise<Void>, done: EventLoopPromise<ClientTally>
    ) {
        self.settings = settings
        self.live = live
        self.window = window
        self.fanout = fanout
        self.progress = progress
        self.ready = ready
        self.done = done
    }

    func channelActive(context: ChannelHandlerContext) {
        let hello = ClientMessage.hello(
            ClientMessage.Hello(req: 1, client: "cork-load/\(ProductVersion.version)", token: settings.token, clientID: ClientID(settings.clientID)))
        write(Handshake.coder.encodeLine(hello), context: context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let line = unwrapInboundIn(data)
        tally.bytes.received += line.readableBytes + 1
        let scanned = ServerLine(line)
        switch (phase, scanned.kind) {
        case (_, .ping):
            tally.bytes.sent += Handshake.pong.readableBytes
            context.writeAndFlush(wrapOutboundOut(Handshake.pong), promise: nil)
        case (.streaming, .delta):
            delta(line, scanned)
        case (.welcoming, .welcome):
            if case .welcome(let welcome) = try? Handshake.coder.decodeServer(line.readableBytesView) {
                tally.users.insert(welcome.user.rawValue)
            }
            phase = .subscribing
            let request = ClientMessage.subscribe(ClientMessage.Subscribe(req: 2, board: BoardID(settings.boardName)))
            write(Handshake.coder.encodeLine(request), context: context)
        case (.subscribing, .other) where settings.isReference:
            if case .snapshot(let message) = try? Handshake.coder.decodeServer(line.readableBytesView) { snapshot = message.state }
        case (.subscribing, .subscribed):
            subscribedSeq = scanned.seq ?? 0
            check = SeqCheck(subscribedAt: subscribedSeq)
            if settings.isReference { reference = ReferenceLog(board: settings.board, snapshot: snapshot, subscribedSeq: subscribedSeq) }
            snapshot = nil
            phase = .streaming
            tally.subscribersConnected = 1
            progress.lastSeq.store(subscribedSeq, ordering: .relaxed)
            progress.subscribed.store(true, ordering: .releasing)
            ready.succeed()
        case (_, .error):
            let error = Handshake.error(line)
            if phase == .streaming, case .error(let decoded) = try? Handshake.coder.decodeServer(line.readableBytesView),
                !decoded.closesConnection
            {
                tally.count(decoded.code.rawValue)
            } else {
                // Before it is subscribed, any error ends the subscriber (a `subscribe` refused as `not_found` leaves
                // the connection open, and the subscriber would wait there, counted but never named).
                tally.fail(error.code, client: settings.name, error.description + (phase == .streaming ? " (at seq \(check.last))" : ""))
                live.errors.add(1, ordering: .relaxed)
                ready.fail(error)
                context.close(promise: nil)
            }
        case (_, .bye):
            if !progress.isClosing {
                tally.fail("bye", client: settings.name, "bye: the server said bye (it is stopping) at seq \(check.last)")
                live.errors.add(1, ordering: .relaxed)
            }
        default:
            break
        }
    }

    private func delta(_ line: ByteBuffer, _ scanned: ServerLine) {
        guard let seq = scanned.seq else {
            tally.count("bad_delta")
            return
        }
        let now = NIODeadline.now().uptimeNanoseconds
        check.saw(seq)
        line.withUnsafeReadableBytes { hash.add($0) }
        if reference != nil { keep(line, seq: seq) }
        progress.lastSeq.store(seq, ordering: .relaxed)
        tally.deliveriesTotal += 1
        if window.measures(now) { tally.deliveries += 1 }
        unflushed += 1
        if unflushed == 256 {
            live.deliveries.add(unflushed, ordering: .relaxed)
            unflushed = 0
        }
        if let publisher = scanned.publisher, let mut = scanned.mut {
            switch fanout.received(publisher: publisher, mut: mut, at: now) {
            case .pending: break
            case .complete(let latency, let sent):
                if window.measures(sent) { tally.fanout.record(latency / 1_000) }
            case .overrun: tally.fanoutOverruns += 1
            }
        }
    }

    /// The end of a read: publish the deliveries counted so far to the progress line (one atomic add per read, not
    /// per delta; a quiet subscriber would otherwise hold its count until 256).
    func channelReadComplete(context: ChannelHandlerContext) {
        if unflushed > 0 {
            live.deliveries.add(unflushed, ordering: .relaxed)
            unflushed = 0
        }
        context.fireChannelReadComplete()
    }

    private func keep(_ line: ByteBuffer, seq: UInt64) {
        guard var log = reference, !log.truncated else { return }
        reference = nil  // keep the log uniquely referenced while it grows
        if log.bytes.count + line.readableBytes > settings.replayBytesMax {
            log.truncated = true
        } else {
            log.bytes.append(contentsOf: line.readableBytesView)
            log.ends.append(log.bytes.count)
            log.seqs.append(seq)
        }
        reference = log
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !progress.isClosing {
            let code = (error as? TransportError)?.wireCode?.rawValue ?? (phase == .streaming ? "connection_lost" : "connect_failed")
            tally.fail(code, client: settings.name, "\(code): \(LoadError.describe(error))")
            live.errors.add(1, ordering: .relaxed)
        }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { finish() }

    private func finish() {
        guard phase != .finished else { return }
        let streamed = phase == .streaming
        phase = .finished
        progress.ended.store(true, ordering: .releasing)
        live.ended.add(1, ordering: .relaxed)
        live.deliveries.add(unflushed, ordering: .relaxed)
        unflushed = 0
        if streamed {
            if progress.isClosing {
                tally.subscribersCompleted = 1
            } else if tally.errors.isEmpty {
                tally.fail("closed", client: settings.name, "closed: the server closed the connection at seq \(check.last)")
                live.errors.add(1, ordering: .relaxed)
            }
            tally.seqBroken = check.isContiguous ? 0 : 1
            tally.gaps = check.gaps
            tally.duplicates = check.duplicates
            let lost = !progress.isClosing
            tally.streams = [
                StreamRecord(board: settings.board, subscribedSeq: subscribedSeq, lastSeq: check.last, hash: hash, lostConnection: lost)
            ]
            if var reference {
                reference.lostConnection = lost
                tally.references = [reference]
            }
        } else if tally.errors.isEmpty {
            tally.fail("connect_failed", client: settings.name, "connect_failed: the connection closed before it was subscribed")
            live.errors.add(1, ordering: .relaxed)
        }
        ready.fail(LoadError("closed", "the connection closed before subscribed"))
        done.succeed(tally)
    }

    private func write(_ bytes: [UInt8], context: ChannelHandlerContext) {
        tally.bytes.sent += bytes.count
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: bytes)), promise: nil)
    }
}
