import BoardCore
import BoardStore
import BoardTransport
import BoardWire
import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import ServiceLifecycle

/// The Corkboard server as a `Service`: accepts TLS connections, runs one task per connection and one commit loop
/// per board, and polls the admin queue. On graceful shutdown it stops accepting, says `bye` to every session,
/// commits what is pending, then closes the connections (STYLE.md 7).
///
/// A connection whose set-up fails is closed, logged at `warning` and counted (``counters``); the others go on. If
/// the listener itself fails, the server winds down the same way and `run()` throws a `network` ``ServerError``, so
/// that `corkd` exits non-zero at once and a supervisor restarts it.
public struct BoardServer: Service {
    let configuration: ServerConfiguration
    let store: any AdminStore
    /// What the store can do beyond ``BoardStore`` (PostgreSQL: serve several nodes).
    let features: StoreFeatures
    let tls: NIOSSLContext
    let clock: any ServerClock
    let logger: Logger
    let group: any EventLoopGroup
    let onListening: @Sendable (SocketAddress) async -> Void
    /// Connections from other doors (the web listener), served like the listener's.
    let accepted: AcceptedConnections?
    /// What the server counts (``ServerConfiguration/metrics``), failed connection set-ups among it.
    public var counters: ServerMetrics { configuration.metrics }
    /// Seams for tests: a failing connection set-up, the listener itself.
    var hooks = Hooks()

    /// What tests can inject (`@testable import BoardServer`).
    struct Hooks: Sendable {
        /// Runs on every accepted channel before its pipeline is installed; a throw fails that connection's set-up.
        var prepareChild: @Sendable (any Channel) throws -> Void = { _ in }
        /// Told the listening channel once it is bound.
        var listener: @Sendable (any Channel) -> Void = { _ in }
    }

    /// Makes a server; `onListening` is told the bound address (useful with port 0).
    public init(
        configuration: ServerConfiguration, store: any AdminStore, features: StoreFeatures = .none, tls: NIOSSLContext,
        accepted: AcceptedConnections? = nil, clock: any ServerClock = WallClock(), logger: Logger, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        onListening: @escaping @Sendable (SocketAddress) async -> Void = { _ in }
    ) {
        self.configuration = configuration
        self.store = store
        self.features = features
        self.tls = tls
        self.accepted = accepted
        self.clock = clock
        self.logger = logger
        self.group = group
        self.onListening = onListening
    }

    /// Serves until graceful shutdown or cancellation; throws when it cannot listen, or when the listener fails.
    public func run() async throws {
        // A fresh channel to this run's webhook deliverer (a configuration may serve more than one run).
        let configuration = {
            var configuration = self.configuration
            configuration.hookSignals = HookSignals()
            configuration.inboxSignals = InboxSignals()
            configuration.presenceOutbound = features.presence == nil ? nil : PresenceOutbound()
            return configuration
        }()
        let (started, startedContinuation) = AsyncStream.makeStream(of: BoardActor.self)
        let registry = BoardRegistry(
            store: store, shared: features.shared, configuration: configuration, clock: clock, logger: logger, started: startedContinuation)
        try await registry.loadAll()
        let limits = configuration.limits
        let directory = SessionDirectory(
            connectionsMax: limits.connectionsMax, preauthPerIP: limits.preauthPerIP,
            perUserMax: { configuration.currentLimits.connectionsPerUser })
        let context = SessionContext(
            registry: registry, directory: directory, store: store, configuration: configuration, clock: clock,
            logger: logger)
        let slowConsumer = Self.slowConsumerLine(limits)
        let counters = configuration.metrics
        let listener: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
        let drain = ListenerDrain()
        do {
            listener = try await Transport.bindServer(
                host: configuration.host, port: configuration.port, group: group, tls: tls,
                limits: TransportLimits(wire: limits), slowConsumerLine: slowConsumer, drain: drain,
                onChildFailure: { [logger] error in
                    let total = counters.connectionSetupFailed()
                    logger.warning(
                        "a connection failed its set-up and was closed; still accepting",
                        metadata: ["error": "\(error)", "failures": "\(total)"])
                },
                prepareChild: hooks.prepareChild)
        } catch {
            accepted?.finish()
            throw ServerError(.network, "cannot listen on \(configuration.host):\(configuration.port): \(Self.describeBindFailure(error))")
        }
        let adminListeners: [AdminListener]
        do {
            adminListeners = try await Self.bindAdminListeners(configuration, group: group, logger: logger) {
                await ServerMetrics.Sample.take(directory: directory, registry: registry)
            }
        } catch {
            try? await listener.channel.close()
            throw error
        }
        hooks.listener(listener.channel)
        counters.health.listening()
        if let address = listener.channel.localAddress { await onListening(address) }
        logger.info("listening", metadata: ["address": "\(listener.channel.localAddress?.description ?? "?")"])

        let listenerFailure: ServerError? = try await withThrowingDiscardingTaskGroup { tasks in
            for endpoint in adminListeners { tasks.addTask { await endpoint.run() } }
            // Connections from the other doors, until the listener closes (`accepted.finish()` below); their
            // sessions end as the listener's do.
            if let accepted {
                tasks.addTask {
                    await withDiscardingTaskGroup { sessions in
                        for await arrival in accepted.arrivals {
                            let connection = arrival.take()
                            sessions.addTask(executorPreference: LoopTaskExecutor(connection.channel.eventLoop)) {
                                await Session.serve(connection, address: arrival.address, context: context)
                            }
                        }
                    }
                }
            }
            tasks.addTask {
                await withDiscardingTaskGroup { boards in
                    for await board in started {
                        boards.addTask { await board.run() }
                    }
                }
                // Every board has committed what was pending: now the last acks and deltas are written.
                for session in await directory.all() { session.outbox.close() }
                logger.info("shutdown: every board committed; outboxes closed")
            }
            // The admin poller runs beside the accept loop and stops with it, whatever ended it.
            let failure = await withTaskGroup(of: Void.self) { admin in
                admin.addTask {
                    await AdminPoller(
                        registry: registry, directory: directory, store: store,
                        interval: configuration.adminPollInterval, logger: logger, shared: features.shared
                    ).run()
                    logger.info("shutdown: the admin poller stopped")
                }
                // Outgoing webhooks: delivered from the store's committed changes, off every board's path.
                admin.addTask {
                    await HookDispatcher(
                        store: store, board: { id in await registry.board(id)?.committedForHooks() },
                        recent: { id, seq in await registry.board(id)?.changesForHooks(after: seq) },
                        settings: { configuration.currentHooks }, signals: configuration.hookSignals, clock: clock,
                        metrics: counters, logger: logger, shared: features.shared
                    ).run()
                    logger.info("shutdown: the webhook dispatcher stopped")
                }
                // Users' inboxes: entries derived from the committed changes, sent to their users' sessions here.
                admin.addTask {
                    await InboxService(
                        store: store, registry: registry, directory: directory, signals: configuration.inboxSignals,
                        shared: features.shared, clock: clock, reminderScan: configuration.reminderScanInterval,
                        reminderLead: configuration.reminderLead, mail: configuration.mail, logger: logger
                    ).run()
                    logger.info("shutdown: the inbox stopped")
                }
                // PostgreSQL: learn of other nodes' commits (LISTEN) and fan them out here too.
                if let watcher = features.heads {
                    let listenLog = RetryLog(
                        "LISTEN lost: other nodes' changes reach this node's subscribers late",
                        recovered: "LISTEN re-established; every board catches up by seq")
                    admin.addTask {
                        await watcher.watchHeads(retryDelay: configuration.listenRetryDelay) { signal in
                            await Self.route(signal, registry: registry, metrics: counters, log: listenLog, logger: logger)
                        }
                        logger.info("shutdown: the commit listener stopped")
                    }
                }
                // PostgreSQL: presence across nodes (NOTIFY on a channel of its own).
                if let bus = features.presence, let outbound = configuration.presenceOutbound {
                    let port = listener.channel.localAddress?.port ?? configuration.port
                    let relay = PresenceRelay(
                        bus: bus, registry: registry, directory: directory, outbound: outbound,
                        node: PresenceRelay.newNodeID(),
                        name: "\(ProcessInfo.processInfo.hostName):\(port)", heartbeat: configuration.presenceHeartbeat,
                        ttl: configuration.presenceNodeTTL, retryDelay: configuration.listenRetryDelay, clock: clock,
                        logger: logger)
                    admin.addTask {
                        await relay.run()
                        logger.info("shutdown: the presence relay stopped")
                    }
                }
                let failure = await withGracefulShutdownHandler {
                    await Self.accept(on: listener, drain: drain) { connection in
                        // The session's jobs run on its connection's loop (LoopTaskExecutor).
                        tasks.addTask(executorPreference: LoopTaskExecutor(connection.channel.eventLoop)) {
                            await Session.serve(connection, context: context)
                        }
                    }
                } onGracefulShutdown: {
                    counters.health.stopping()
                    Task { await drain.close(listener.channel) }
                }
                counters.health.stopping()
                accepted?.finish()
                logger.info("shutdown: the listener closed; stopping the admin tasks")
                admin.cancelAll()
                return failure
            }
            if let failure {
                logger.error("the listener failed; closing every session and exiting", metadata: ["error": "\(failure)"])
            } else {
                logger.info("shutting down: saying bye, committing what is pending")
            }
            let bye = Lines.line(.bye(Bye(reason: "shutdown", retryAfterMs: 1_000)))
            let outboxes = await directory.outboxes()
            for outbox in outboxes.sessions { outbox.send(bye) }
            // Connections that have not said hello yet are told too, and closed: they have nothing to drain.
            for outbox in outboxes.preauth { outbox.sendAndClose(bye) }
            await registry.stopAll()
            logger.info("shutdown: every board stopped; waiting for the sessions")
            for endpoint in adminListeners { endpoint.close() }
            return failure
        }
        // A server that can no longer accept must not linger: the caller (corkd) exits non-zero at once.
        if let listenerFailure { throw listenerFailure }
        logger.info("stopped")
    }

    /// Hands every accepted connection to `serve` until the listener closes. Returns nil when it closed for a
    /// graceful shutdown, otherwise why it stopped: the listener's own error, or a close nobody asked for.
    private static func accept(
        on listener: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>, drain: ListenerDrain,
        serve: (NIOAsyncChannel<ByteBuffer, ByteBuffer>) -> Void
    ) async -> ServerError? {
        do {
            try await listener.executeThenClose { inbound in
                for try await connection in inbound {
                    drain.taken()
                    serve(connection)
                }
            }
        } catch {
            // Cancelled: the process is stopping for another reason (a listener beside this one could not start),
            // which it reports itself.
            if Task.isShuttingDownGracefully || Task.isCancelled || error is CancellationError { return nil }
            return ServerError(.network, "the listener stopped accepting: \(error)")
        }
        if Task.isShuttingDownGracefully || Task.isCancelled { return nil }
        return ServerError(.network, "the listener closed without a shutdown being asked for")
    }
}

extension BoardServer {
    /// The line an outbox writes before closing a slow consumer, for every door's connections.
    public static func slowConsumerLine(_ limits: WireLimits) -> ByteBuffer {
        Lines.error(WireError(.slowConsumer, "the outbox passed \(limits.outboxBytes) bytes or a write stalled; resume from your seq"))
    }

    /// A failed bind in words (NIO's own text is `bind(descriptor:ptr:bytes:): … (errno: 98)`); `portOption` is the
    /// option that chooses the port (`--port`, `--web-port`), `hostOption` the one that chooses the address.
    public static func describeBindFailure(_ error: any Error, portOption: String = "--port", hostOption: String = "--host") -> String {
        guard let io = error as? IOError else { return "\(error)" }
        switch io.errnoCode {
        case EADDRINUSE: return "the address is in use (another corkd, or another program, listens there; \(portOption) chooses another)"
        case EACCES: return "permission denied (a port below 1024 needs privileges this user does not have)"
        case EADDRNOTAVAIL: return "this machine has no such address (\(hostOption) must be one of its addresses, or 0.0.0.0)"
        default: return String(cString: strerror(io.errnoCode))
        }
    }
}

/// How ServiceLifecycle names the server in its debug log: where it listens, not every setting (the configuration's
/// own description would print the whole struct on one line).
extension BoardServer: CustomStringConvertible {
    public var description: String { "BoardServer(\(configuration.host), port \(configuration.port))" }
}
