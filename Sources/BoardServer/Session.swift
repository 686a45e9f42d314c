import BoardCore
import BoardStore
import BoardTransport
import BoardWire
import Foundation
import Logging
import NIOCore

/// What every session shares: the boards, the store, the directory, the limits.
struct SessionContext: Sendable {
    var registry: BoardRegistry
    var directory: SessionDirectory
    var store: any BoardStore
    var configuration: ServerConfiguration
    var clock: any ServerClock
    var logger: Logger
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
                    }
                } catch let error as TransportError {
                    // Still open here: say why before `executeThenClose` closes the connection.
                    if let code = error.wireCode, code != .slowConsumer {
                        try? await channel.writeAndFlush(Lines.error(WireError(code, error.message)))
                    }
                    self.logger.debug("connection closed by the transport", metadata: ["error": "\(error)"])
                }
            }
        } catch {
            logger.debug("connection ended", metadata: ["error": "\(error)"])
        }
        machine.closed()
    }

    private mutating func received(_ line: ByteBuffer, authTimeout: Scheduled<Void>) async {
        let message: ClientMessage
        do {
            message = try Lines.coder.decodeClient(line.readableBytesView)
        } catch {
            // Before welcome the line's type decides between an answer and unauthenticated (SessionMachine.badLine).
            var type: String?
            if case .open = machine.state {} else { type = LineCoder.messageType(of: line.readableBytesView) }
            await perform(machine.badLine(error, type: type, now: context.clock.now().milliseconds), authTimeout: authTimeout)
            return
        }
        await perform(machine.received(message), authTimeout: authTimeout)
    }

    private mutating func perform(_ action: SessionMachine.Action, authTimeout: Scheduled<Void>) async {
        switch action {
        case .none:
            break
        case .reply(let message):
            outbox.send(Lines.line(message))
        case .close(let error):
            await outbox.sendFinal(Lines.error(error.closing))
        case .closeQuietly:
            // Answer every op sent before `bye`: wait until the boards written to have committed and queued their
            // acks, then close once those bytes are out.
            for id in touched {
                var board = boards[id]
                if board == nil { board = await context.registry.board(id) }
                await board?.drained()
            }
            outbox.close()
        case .authenticate(let hello):
            let outcome = await authenticate(hello)
            if case .failure(let error) = outcome, error.code == .authFailed {
                // Brute force from one address is slowed down; the token is never logged.
                let delay = await context.directory.authFailed(from: address, nowMs: context.clock.now().milliseconds)
                if delay > .zero {
                    logger.notice("repeated failed logins", metadata: ["address": "\(address)"])
                    try? await Task.sleep(for: delay)
                }
            }
            let next = machine.authenticated(outcome.map(\.user))
            if case .success(let ref) = outcome {
                guard await context.directory.register(ref) else {
                    machine.closed()
                    let limit = context.configuration.limits.connectionsPerUser
                    outbox.sendAndClose(
                        Lines.error(WireError(.serverFull, "\(ref.user) has \(limit) sessions already", req: hello.req)))
                    return
                }
                self.ref = ref
                authTimeout.cancel()
                await context.directory.leftPreauth(address)
                logger[metadataKey: "user"] = "\(ref.user)"
                connection.channel.triggerUserOutboundEvent(FramingCommand.authenticated, promise: nil)
                let limits = context.configuration.limits
                outbox.send(
                    Lines.line(
                        .welcome(
                            ServerMessage.Welcome(
                                req: hello.req, session: ref.id, user: ref.user, role: ref.account, clientID: ref.clientID,
                                server: context.configuration.serverName, limits: limits, heartbeatMs: limits.heartbeatMs))))
            }
            await perform(next, authTimeout: authTimeout)
        case .handle(let message):
            guard let ref else { return }
            await handle(message, as: ref)
        }
    }

    private func authenticate(_ hello: ClientMessage.Hello) async -> Result<SessionRef, WireError> {
        let check: TokenCheck?
        do {
            check = try await context.store.authenticate(token: hello.token, now: context.clock.now())
        } catch {
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
