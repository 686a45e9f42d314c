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
    let store: any AdminStore
    let configuration: ServerConfiguration
    let clock: any ServerClock
    let logger: Logger

    init(
        registry: BoardRegistry, directory: SessionDirectory, store: any AdminStore, configuration: ServerConfiguration,
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
///
/// A class, used only by the connection's own task: its async frames then hold one reference instead of the whole
/// session. A Swift task keeps the memory of its deepest chain of async frames for as long as it lives, which for a
/// session is as long as the connection (see `inOwnTask`): that memory is part of what every idle connection costs.
final class Session {
    let connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>
    let context: SessionContext
    let outbox: Outbox
    var machine: SessionMachine
    var ref: SessionRef?
    var subscriptions: Set<BoardID> = []
    /// The actors of the boards this session sent ops or presence to: after the first, an op goes straight to its
    /// board, which checks membership and rate itself (one actor hop per op).
    var boards: [BoardID: BoardActor] = [:]
    /// The server's logger with the peer and, once known, the user: built when something is logged (rarely), not
    /// kept with every connection.
    var logger: Logger {
        var logger = context.logger
        logger[metadataKey: "peer"] = "\(connection.channel.remoteAddress?.description ?? "?")"
        if let ref { logger[metadataKey: "user"] = "\(ref.user)" }
        return logger
    }
    /// Presence updates allowed per second (`presence_rate_per_s`): excess drag positions are dropped.
    var presenceBucket: PresenceBucket?
    /// The last presence state this session sent.
    var lastPresence: PresenceActivity?
    /// Boards this session sent ops to (their acks must go out before a `bye` closes the connection).
    var touched: Set<BoardID> = []
    /// Boards whose bucket is known to be empty for a moment: ops refused without the board (`EmptyBuckets`).
    var emptyBuckets = EmptyBuckets()
    /// Set when this session answered `rate_limited`: how long to read nothing more from the connection (at most
    /// `EmptyBuckets.maxWindowMs`). A flooder's lines then wait in TCP buffers, and its writes block, instead of
    /// taking the event loop and the CPU from the other connections.
    var readPauseMs: Int64?
    /// The peer's IP address (for the pre-auth cap).
    let address: String
    /// Set once the session has left its boards (`leaveBoards`).
    private var leftBoards = false

    init(connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>, context: SessionContext, address: String) {
        self.connection = connection
        self.context = context
        self.address = address
        self.outbox = Outbox(channel: connection.channel)
        let limits = context.configuration.limits
        self.machine = SessionMachine(errorBudget: limits.errorBudget, errorWindowMs: Int64(limits.errorWindowMs))
    }

    /// Serves the connection until it closes; never throws. Each step is a function of its own, so that the frame
    /// that lives as long as the connection holds little more than the session's reference.
    static func serve(
        _ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>, address: String? = nil, context: SessionContext
    ) async {
        guard let session = await admit(connection, address: address, context: context) else { return }
        await session.run()
        await session.end()
    }

    /// Counts the connection in, or refuses it with `server_full` (then nil).
    @inline(never)
    private static func admit(
        _ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>, address: String?, context: SessionContext
    ) async -> Session? {
        let address = address ?? connection.channel.remoteAddress?.ipAddress ?? "?"
        guard await context.directory.open(from: address, outbox: Outbox(channel: connection.channel)) else {
            await Refusal.refuse(connection, with: Lines.error(WireError(.serverFull, "the server has no room for another connection")))
            return nil
        }
        return Session(connection: connection, context: context, address: address)
    }

    /// The connection closed: leave every board used (if the read loop's end did not already) and the directory.
    @inline(never)
    private func end() async {
        await leaveBoards()
        if ref == nil { await context.directory.leftPreauth(address, outbox) }
        await context.directory.close(ref?.id)
    }

    /// Leaves every board used, once: the others see `presence.left` now. Runs as soon as the session stops reading,
    /// before the connection's close, which waits (up to NIOSSL's shutdown timeout, 5 s) for the peer's
    /// `close_notify`: a client that said `bye` and keeps its socket open is gone from the board at once.
    @inline(never)
    private func leaveBoards() async {
        guard let ref, !leftBoards else { return }
        leftBoards = true
        for id in subscriptions.union(touched) {
            var board = boards[id]
            if board == nil { board = await context.registry.board(id) }
            await board?.sessionEnded(ref.id)
        }
    }

    /// How many lines a session handles in a row before it lets its loop run other work.
    static let linesPerTurn = 16

    private func run() async {
        let channel = connection.channel
        // On the event loop's shared schedule (LoopTimers), not a NIO timer per connection.
        let timeout = LoopTimer.schedule(on: channel.eventLoop, in: .milliseconds(Int64(context.configuration.limits.authTimeoutMs))) {
            channel.writeAndFlush(Lines.error(WireError(.unauthenticated, "no hello within the auth timeout")))
                .whenComplete { _ in channel.close(promise: nil) }
        }
        defer { timeout.cancel() }
        do {
            try await connection.executeThenClose { inbound, _ in
                do {
                    var sinceYield = 0
                    var lingering = false
                    for try await line in inbound {
                        // Closing: its output is shut; what the peer still sends is dropped until it closes too
                        // (`Outbox.closeAfterLinger`), never read as a request.
                        if lingering { continue }
                        // `consume`: the line is let go of before any pause below. A line still held shares
                        // NIOSSL's read buffer, which then has to be copied (32 KiB) when the next record arrives.
                        await self.received(consume line, authTimeout: timeout)
                        // Every way the session closes ends in `Outbox.closeAfterLinger`, which closes the
                        // connection within the linger time at the latest.
                        if self.machine.state == .closed {
                            lingering = true
                            await self.leaveBoards()
                            continue
                        }
                        // The session runs on its connection's loop: a client that pipelines many lines gives the
                        // loop back every few of them, so its writes and the loop's other connections go on.
                        sinceYield += 1
                        if sinceYield == Self.linesPerTurn {
                            sinceYield = 0
                            await Task.yield()
                        }
                        if let pause = self.readPauseMs {
                            // Nothing is read meanwhile: NIOAsyncChannel stops reading the socket once its buffer
                            // is full, so TCP pushes back on the sender.
                            self.readPauseMs = nil
                            await self.context.clock.pause(milliseconds: pause)
                            try Task.checkCancellation()
                        }
                    }
                } catch let error as TransportError {
                    await self.transportFailed(error)
                }
                await self.leaveBoards()
            }
        } catch {
            connectionFailed(error)
        }
        machine.closed()
    }

    /// The pipeline gave up on the connection: say why while it is still open (`executeThenClose` closes it next).
    @inline(never)
    private func transportFailed(_ error: TransportError) async {
        context.configuration.metrics.transportClosed(error.code)
        if let code = error.wireCode, code != .slowConsumer {
            await outbox.sendAndWait(Lines.error(WireError(code, error.message)))
        }
        logger.debug("connection closed by the transport", metadata: ["error": "\(error)"])
    }

    @inline(never)
    private func connectionFailed(_ error: any Error) {
        context.configuration.metrics.connectionFailed(error)
        logger.debug("connection ended", metadata: ["error": "\(error)"])
    }

    @inline(never)
    private func received(_ line: ByteBuffer, authTimeout: LoopTimer) async {
        await perform(step(line), authTimeout: authTimeout)
    }

    /// Decodes a line and feeds it to the machine (synchronous, so that its temporaries stay off the task's frames).
    @inline(never)
    private func step(_ line: ByteBuffer) -> SessionMachine.Action {
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
    private func perform(_ first: SessionMachine.Action, authTimeout: LoopTimer) async {
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
            case .authenticate:
                // The action (one reference: it is indirect) is handed on whole, so that its payload is unpacked
                // in the callee's frame, not kept in this one's.
                guard let next = await authenticate(action, authTimeout: authTimeout) else { return }
                action = next
            case .handle:
                guard let ref else { return }
                await handle(action, as: ref)
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
    /// then close once those bytes are out. It waits for them here: the connection's scope closes the channel as soon
    /// as the session returns, which would cut off answers still on their way to the socket.
    @inline(never)
    private func closeQuietly() async {
        for id in touched {
            var board = boards[id]
            if board == nil { board = await context.registry.board(id) }
            await board?.drained()
        }
        await outbox.closeWhenWritten()
    }

    /// What the token check, the failed-login slow-down and the registration, run in their own task, decided.
    enum HelloOutcome: Sendable {
        /// Refused: the token is unknown, revoked or expired, or could not be checked.
        case refused(WireError)
        /// The token is good but its user has `connections_per_user` sessions already.
        case full(SessionRef)
        /// Registered in the directory.
        case admitted(SessionRef)
    }

    /// Checks a `hello`'s token; on success registers the session and says `welcome`. Returns the machine's next
    /// action, or nil when the connection is being closed. Everything that waits runs in a task of its own
    /// (`inOwnTask`): only the answer is handled on the session's task.
    @inline(never)
    private func authenticate(_ action: SessionMachine.Action, authTimeout: LoopTimer) async
        -> SessionMachine.Action?
    {
        guard case .authenticate(let hello) = action else { return nil }
        // The hello came in time: the deadline is for saying it, not for the check, which the store bounds (its
        // reads wait at most 5 s for PostgreSQL). A check cut off at the deadline would be answered "no hello
        // within the auth timeout", which clients take as final, when the database is slow or away.
        authTimeout.cancel()
        let context = self.context
        let outbox = self.outbox
        let address = self.address
        let logger = self.logger
        let outcome = await Self.inOwnTask {
            await Self.admit(hello, context: context, outbox: outbox, address: address, logger: logger)
        }
        if case .full(let ref) = outcome {
            // The refusal reaches the socket before the session returns and its connection is closed.
            _ = machine.authenticated(.success(ref.user))
            machine.closed()
            await outbox.sendFinal(Self.tooManySessionsLine(ref, hello, context))
            return nil
        }
        return authenticated(outcome, hello: hello, authTimeout: authTimeout)
    }

    /// The session's side of `authenticate`, synchronous.
    @inline(never)
    private func authenticated(_ outcome: HelloOutcome, hello: ClientMessage.Hello, authTimeout: LoopTimer)
        -> SessionMachine.Action?
    {
        switch outcome {
        case .refused(let error):
            return machine.authenticated(.failure(error))
        case .full:
            return nil
        case .admitted(let ref):
            let next = machine.authenticated(.success(ref.user))
            self.ref = ref
            authTimeout.cancel()
            connection.channel.triggerUserOutboundEvent(FramingCommand.authenticated, promise: nil)
            outbox.send(Self.welcomeLine(ref, hello, context))
            return next
        }
    }

    /// Checks the token (slowing down repeated failures from one address) and registers the session.
    private static func admit(
        _ hello: ClientMessage.Hello, context: SessionContext, outbox: Outbox, address: String, logger: Logger
    ) async -> HelloOutcome {
        // Every login and refused login at info, with the peer's address (never the token): the trail an operator
        // reads after an incident.
        switch await check(hello, context: context, outbox: outbox) {
        case .failure(let error):
            logger.info("login refused", metadata: ["address": "\(address)", "code": "\(error.code.rawValue)", "reason": "\(error.message)"])
            if error.code == .authFailed {
                await slowDownFailedLogin(context: context, address: address, logger: logger)
            }
            return .refused(error)
        case .success(let ref):
            guard await context.directory.register(ref) else {
                logger.info("login refused", metadata: ["address": "\(address)", "user": "\(ref.user)", "code": "server_full"])
                return .full(ref)
            }
            await context.directory.leftPreauth(address, outbox)
            logger.info("logged in", metadata: ["address": "\(address)", "user": "\(ref.user)", "session": "\(ref.id)", "client": "\(ref.clientID)"])
            return .admitted(ref)
        }
    }

    /// Brute force from one address is slowed down; the token is never logged.
    private static func slowDownFailedLogin(context: SessionContext, address: String, logger: Logger) async {
        let delay = await context.directory.authFailed(
            from: address, nowMs: context.clock.monotonicMs(), delay: context.configuration.failedLoginDelay)
        if delay > .zero {
            context.configuration.metrics.loginDelayed()
            logger.notice("repeated failed logins", metadata: ["address": "\(address)"])
            try? await Task.sleep(for: delay)
        }
    }

    @inline(never)
    private static func welcomeLine(_ ref: SessionRef, _ hello: ClientMessage.Hello, _ context: SessionContext) -> ByteBuffer {
        let limits = context.configuration.currentLimits
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
        let limit = context.configuration.currentLimits.connectionsPerUser
        return Lines.error(WireError(.serverFull, "\(ref.user) is at the limit of \(limit) sessions (connections_per_user)", req: hello.req))
    }

    /// Runs a rare request's deep path (the token check in the store, loading a board, a snapshot for `subscribe`)
    /// in a task of its own. A Swift task keeps the memory of its deepest chain of async frames until it ends: run on
    /// the session's task, these paths would hold 20–30 KiB per idle connection for the life of the connection; in a
    /// task of their own they are freed when the request is answered. The hot path (`op`, `presence`) stays on the session's
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
            return .failure(
                WireError(
                    .storageBusy, "the server could not check the token: its store cannot be read now; try again",
                    req: hello.req, retryAfterMs: 1_000))
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
