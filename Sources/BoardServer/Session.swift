import BoardCore
import BoardStore
import BoardTransport
import BoardWire
import Foundation
import Logging
import NIOCore

/// What every session shares: the boards, the store, the directory, the limits. A class, so that each session's
/// async frames hold one reference instead of a copy of the configuration.
final class SessionContext: Sendable {
    let registry: BoardRegistry
    let directory: SessionDirectory
    let store: any BoardStore
    let configuration: ServerConfiguration
    let clock: any ServerClock
    let logger: Logger

    init(
        registry: BoardRegistry, directory: SessionDirectory, store: any BoardStore, configuration: ServerConfiguration,
        clock: any ServerClock, logger: Logger
    ) {
        self.registry = registry
        self.directory = directory
        self.store = store
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
    }
}

/// One connection, from `hello` to close: the session logic, in async code (STYLE.md 1).
struct Session {
    let connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>
    let context: SessionContext
    let outbox: Outbox
    var machine: SessionMachine
    var ref: SessionRef?
    var subscriptions: Set<BoardID> = []
    /// The actors of the boards this session sent ops or presence to: after the first, an op goes straight to its
    /// board, which checks membership and rate itself (one actor hop per op).
    var boards: [BoardID: BoardActor] = [:]
    var logger: Logger
    /// Presence updates allowed per second (`presence_rate_per_s`): excess drag positions are dropped.
    var presenceBucket: TokenBucket?
    /// The last presence state this session sent.
    var lastPresence: PresenceActivity?
    /// Boards this session sent ops to (their acks must go out before a `bye` closes the connection).
    var touched: Set<BoardID> = []
    /// Boards whose bucket is known to be empty for a moment: ops refused without the board (`EmptyBuckets`).
    var emptyBuckets = EmptyBuckets()
    /// Set when this session answered `rate_limited`: how long to read nothing more from the connection (at most
    /// `EmptyBuckets.maxWindowMs`). A flooder's lines then wait in TCP buffers, and its writes block, instead of
    /// taking the event loop and the CPU from the other connections (issue 14, defect 2).
    var readPauseMs: Int64?
    /// The peer's IP address (for the pre-auth cap).
    var address = "?"

    init(connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>, context: SessionContext) {
        self.connection = connection
        self.context = context
        self.outbox = Outbox(channel: connection.channel)
        let limits = context.configuration.limits
        self.machine = SessionMachine(errorBudget: limits.errorBudget, errorWindowMs: Int64(limits.errorWindowMs))
        var logger = context.logger
        logger[metadataKey: "peer"] = "\(connection.channel.remoteAddress?.description ?? "?")"
        self.logger = logger
    }

    /// Serves the connection until it closes; never throws.
    static func serve(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>, context: SessionContext) async {
        var session = Session(connection: connection, context: context)
        let address = connection.channel.remoteAddress?.ipAddress ?? "?"
        guard await context.directory.open(from: address) else {
            await Refusal.refuse(connection, with: Lines.error(WireError(.serverFull, "the server has no room for another connection")))
            return
        }
        await session.run(address: address)
        if session.ref == nil { await context.directory.leftPreauth(address) }
        if let ref = session.ref {
            for id in session.subscriptions.union(session.touched) {
                var board = session.boards[id]
                if board == nil { board = await context.registry.board(id) }
                await board?.sessionEnded(ref.id)
            }
        }
        await context.directory.close(session.ref?.id)
    }

    private mutating func run(address: String) async {
        self.address = address
        let channel = connection.channel
        let timeout = channel.eventLoop.scheduleTask(in: .milliseconds(Int64(context.configuration.limits.authTimeoutMs))) {
            channel.writeAndFlush(Lines.error(WireError(.unauthenticated, "no hello within the auth timeout")))
                .whenComplete { _ in channel.close(promise: nil) }
        }
        defer { timeout.cancel() }
        do {
            try await connection.executeThenClose { inbound, _ in
                do {
                    for try await line in inbound {
                        await self.received(line, authTimeout: timeout)
                        if self.machine.state == .closed { break }
                        if let pause = self.readPauseMs {
                            // Nothing is read meanwhile: NIOAsyncChannel stops reading the socket once its buffer
                            // is full, so TCP pushes back on the sender.
                            self.readPauseMs = nil
                            await self.context.clock.pause(milliseconds: pause)
                            try Task.checkCancellation()
                        }
                    }
                } catch let error as TransportError {
                    self.context.configuration.metrics.transportClosed(error.code)
                    // Still open here: say why before `executeThenClose` closes the connection.
                    if let code = error.wireCode, code != .slowConsumer {
                        try? await channel.writeAndFlush(Lines.error(WireError(code, error.message)))
                    }
                    self.logger.debug("connection closed by the transport", metadata: ["error": "\(error)"])
                }
            }
        } catch {
            context.configuration.metrics.connectionFailed(error)
            logger.debug("connection ended", metadata: ["error": "\(error)"])
        }
        machine.closed()
    }

    private mutating func received(_ line: ByteBuffer, authTimeout: Scheduled<Void>) async {
        await perform(step(line), authTimeout: authTimeout)
    }

    /// Decodes a line and feeds it to the machine (synchronous, so that its temporaries stay off the task's frames).
    @inline(never)
    private mutating func step(_ line: ByteBuffer) -> SessionMachine.Action {
        let action: SessionMachine.Action
        do {
            action = machine.received(try Lines.coder.decodeClient(line.readableBytesView))
        } catch {
            // Before welcome the line's type decides between an answer and unauthenticated (SessionMachine.badLine).
            var type: String?
            if case .open = machine.state {} else { type = LineCoder.messageType(of: line.readableBytesView) }
            action = machine.badLine(error, type: type, now: context.clock.monotonicMs())
        }
        return action
    }

    /// Carries out the machine's actions, one after the other (a loop, not recursion: every async frame on the
    /// session's task stays allocated for as long as the connection lives, see `inOwnTask`).
    private mutating func perform(_ first: SessionMachine.Action, authTimeout: Scheduled<Void>) async {
        var action = first
        while true {
            switch action {
            case .none:
                return
            case .reply:
                Self.reply(action, outbox)
                return
            case .close:
                await outbox.sendFinal(Self.closingLine(action))
                return
            case .closeQuietly:
                await closeQuietly()
                return
            case .authenticate(let hello):
                guard let next = await authenticate(hello, authTimeout: authTimeout) else { return }
                action = next
            case .handle(let message):
                guard let ref else { return }
                await handle(message, as: ref)
                return
            }
        }
    }

    @inline(never)
    private static func reply(_ action: SessionMachine.Action, _ outbox: Outbox) {
        if case .reply(let message) = action { outbox.send(Lines.line(message)) }
    }

    @inline(never)
    private static func closingLine(_ action: SessionMachine.Action) -> ByteBuffer {
        guard case .close(let error) = action else { return ByteBuffer() }
        return Lines.error(error.closing)
    }

    /// Answer every op sent before `bye`: wait until the boards written to have committed and queued their acks,
    /// then close once those bytes are out.
    @inline(never)
    private func closeQuietly() async {
        for id in touched {
            var board = boards[id]
            if board == nil { board = await context.registry.board(id) }
            await board?.drained()
        }
        outbox.close()
    }

    /// Checks a `hello`'s token; on success registers the session and says `welcome`. Returns the machine's next
    /// action, or nil when the connection is being closed.
    @inline(never)
    private mutating func authenticate(_ hello: ClientMessage.Hello, authTimeout: Scheduled<Void>) async
        -> SessionMachine.Action?
    {
        let context = self.context
        let outbox = self.outbox
        let outcome = await Self.inOwnTask { await Self.check(hello, context: context, outbox: outbox) }
        if case .failure(let error) = outcome, error.code == .authFailed { await slowDownFailedLogin() }
        let next = machine.authenticated(outcome.map(\.user))
        guard case .success(let ref) = outcome else { return next }
        guard await context.directory.register(ref) else {
            machine.closed()
            outbox.sendAndClose(Self.tooManySessionsLine(ref, hello, context))
            return nil
        }
        self.ref = ref
        authTimeout.cancel()
        await context.directory.leftPreauth(address)
        logger[metadataKey: "user"] = "\(ref.user)"
        connection.channel.triggerUserOutboundEvent(FramingCommand.authenticated, promise: nil)
        outbox.send(Self.welcomeLine(ref, hello, context))
        return next
    }

    /// Brute force from one address is slowed down; the token is never logged.
    @inline(never)
    private func slowDownFailedLogin() async {
        let delay = await context.directory.authFailed(from: address, nowMs: context.clock.monotonicMs())
        if delay > .zero {
            context.configuration.metrics.loginDelayed()
            logger.notice("repeated failed logins", metadata: ["address": "\(address)"])
            try? await Task.sleep(for: delay)
        }
    }

    @inline(never)
    private static func welcomeLine(_ ref: SessionRef, _ hello: ClientMessage.Hello, _ context: SessionContext) -> ByteBuffer {
        let limits = context.configuration.limits
        return Lines.line(
            .welcome(
                ServerMessage.Welcome(
                    req: hello.req, session: ref.id, user: ref.user, role: ref.account, clientID: ref.clientID,
                    server: context.configuration.serverName, limits: limits, heartbeatMs: limits.heartbeatMs,
                    features: ServerMessage.Welcome.serverFeatures)))
    }

    @inline(never)
    private static func tooManySessionsLine(_ ref: SessionRef, _ hello: ClientMessage.Hello, _ context: SessionContext)
        -> ByteBuffer
    {
        let limit = context.configuration.limits.connectionsPerUser
        return Lines.error(WireError(.serverFull, "\(ref.user) has \(limit) sessions already", req: hello.req))
    }

    /// Runs a rare request's deep path (the token check in the store, loading a board, a snapshot for `subscribe`)
    /// in a task of its own. A Swift task keeps the memory of its deepest chain of async frames until it ends, so
    /// run on the session's task these paths left 20–30 KiB per idle connection for the life of the connection
    /// (heaptrack on 2,000 idle connections: `Session.perform`'s and `received`'s frames, 11 KiB each); in a task of
    /// their own they are freed when the request is answered. The hot path (`op`, `presence`) stays on the session's
    /// task. Cancelling the session cancels the request.
    static func inOwnTask<T: Sendable>(_ body: @escaping @Sendable () async -> T) async -> T {
        let task = Task(operation: body)
        return await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
    }

    private static func check(_ hello: ClientMessage.Hello, context: SessionContext, outbox: Outbox) async
        -> Result<SessionRef, WireError>
    {
        let check: TokenCheck?
        do {
            check = try await context.store.authenticate(token: hello.token, now: context.clock.now())
        } catch {
            context.configuration.metrics.readFailed(error)
            return .failure(WireError(.internal, "the server could not check the token", req: hello.req))
        }
        guard let check else { return .failure(WireError(.authFailed, "unknown token", req: hello.req)) }
        if check.revoked { return .failure(WireError(.tokenRevoked, "this token was revoked", req: hello.req)) }
        if check.expired { return .failure(WireError(.tokenExpired, "this token has expired", req: hello.req)) }
        let session = SessionID("s-" + Self.randomID())
        let client = hello.clientID ?? ClientID("c-" + Self.randomID())
        return .success(SessionRef(id: session, user: check.user, clientID: client, outbox: outbox, account: check.account))
    }

    static func randomID() -> String {
        let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyz")
        var generator = SystemRandomNumberGenerator()
        return String((0..<12).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
    }
}
