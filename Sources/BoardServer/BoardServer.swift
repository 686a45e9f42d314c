import BoardCore
import BoardStore
import BoardTransport
import BoardWire
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import ServiceLifecycle

/// The Corkboard server as a `Service`: accepts TLS connections, runs one task per connection and one commit loop
/// per board, and polls the admin queue. On graceful shutdown it stops accepting, says `bye` to every session,
/// commits what is pending, then closes the connections (STYLE.md 7).
public struct BoardServer: Service {
    let configuration: ServerConfiguration
    let store: any BoardStore
    let tls: NIOSSLContext
    let clock: any ServerClock
    let logger: Logger
    let group: any EventLoopGroup
    let onListening: @Sendable (SocketAddress) async -> Void

    /// Makes a server; `onListening` is told the bound address (useful with port 0).
    public init(
        configuration: ServerConfiguration, store: any BoardStore, tls: NIOSSLContext, clock: any ServerClock = WallClock(),
        logger: Logger, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        onListening: @escaping @Sendable (SocketAddress) async -> Void = { _ in }
    ) {
        self.configuration = configuration
        self.store = store
        self.tls = tls
        self.clock = clock
        self.logger = logger
        self.group = group
        self.onListening = onListening
    }

    /// Serves until graceful shutdown or cancellation.
    public func run() async throws {
        let (started, startedContinuation) = AsyncStream.makeStream(of: BoardActor.self)
        let registry = BoardRegistry(
            store: store, configuration: configuration, clock: clock, logger: logger, started: startedContinuation)
        try await registry.loadAll()
        let limits = configuration.limits
        let directory = SessionDirectory(
            connectionsMax: limits.connectionsMax, perUserMax: limits.connectionsPerUser, preauthPerIP: limits.preauthPerIP)
        let context = SessionContext(
            registry: registry, directory: directory, store: store,
            limiter: RateLimiter(rate: limits.rateOpsPerS, burst: limits.rateBurst), configuration: configuration,
            clock: clock, logger: logger)
        let slowConsumer = Lines.error(
            WireError(.slowConsumer, "the outbox passed \(limits.outboxBytes) bytes or a write stalled; resume from your seq"))
        let listener: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
        do {
            listener = try await Transport.bindServer(
                host: configuration.host, port: configuration.port, group: group, tls: tls,
                limits: TransportLimits(wire: limits), slowConsumerLine: slowConsumer)
        } catch {
            throw ServerError(.network, "cannot listen on \(configuration.host):\(configuration.port): \(error)")
        }
        if let address = listener.channel.localAddress { await onListening(address) }
        logger.info("listening", metadata: ["address": "\(listener.channel.localAddress?.description ?? "?")"])

        try await withThrowingDiscardingTaskGroup { tasks in
            tasks.addTask {
                await withDiscardingTaskGroup { boards in
                    for await board in started { boards.addTask { await board.run() } }
                }
                // Every board has committed what was pending: now the last acks and deltas are written.
                for session in await directory.all() { session.outbox.close() }
            }
            tasks.addTask {
                await AdminPoller(registry: registry, directory: directory, store: store, interval: configuration.adminPollInterval, logger: logger)
                    .run()
            }
            await withGracefulShutdownHandler {
                do {
                    try await listener.executeThenClose { inbound in
                        for try await connection in inbound {
                            tasks.addTask { await Session.serve(connection, context: context) }
                        }
                    }
                } catch {
                    logger.debug("accept loop ended", metadata: ["error": "\(error)"])
                }
            } onGracefulShutdown: {
                listener.channel.close(promise: nil)
            }
            logger.info("shutting down: saying bye, committing what is pending")
            let bye = Lines.line(.bye(Bye(reason: "shutdown", retryAfterMs: 1_000)))
            for session in await directory.all() { session.outbox.send(bye) }
            await registry.stopAll()
        }
        logger.info("stopped")
    }
}
