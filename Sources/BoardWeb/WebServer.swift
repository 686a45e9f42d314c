import BoardClient
import BoardCore
import BoardServer
import BoardTransport
import BoardWire
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import ServiceLifecycle
import Synchronization

/// What the web listener needs.
public struct WebConfiguration: Sendable {
    /// The address to bind.
    public var host = "127.0.0.1"
    /// The port (0 picks a free one).
    public var port = 7421
    /// TLS for HTTPS; nil serves plain HTTP, which ``WebServer`` allows only on a loopback address.
    public var tls: NIOSSLContext?
    /// The wire limits of the server (lines, outbox, timeouts), for `/v1` and for the web sessions' connections.
    public var limits = WireLimits()
    /// Seals the session cookie.
    public var cookie: WebCookie
    /// Origins besides the page's own that may open `/v1` from a browser (`https://dash.example.com`).
    public var allowedOrigins: [String] = []
    /// The product version, told to the page.
    public var version = "0"
    /// The event loops for the listener and its connections.
    public var group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    /// Follows a digest mail's unsubscribe link (`/unsubscribe`); nil: the link is not served.
    public var unsubscribe: (@Sendable (UserID, String) async -> MailUnsubscribe.Outcome)?

    public init(cookie: WebCookie) { self.cookie = cookie }

    /// Whether `host` is a loopback address (where plain HTTP is allowed).
    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}

/// The web listener: the board page and its live channel (`/live`), the session cookie (`/session`) and the wire
/// protocol over WebSocket (`/v1`). HTTP/1.1 and WebSocket come from SwiftNIO's own `NIOHTTP1` and `NIOWebSocket`:
/// a WebSocket here ends in the same line channel a TLS connection does, so the server's sessions serve it with no
/// adapter, and the page is four static files that need no router.
///
/// Connections it accepts for the server go through ``BoardServer/AcceptedConnections``. A failing connection is
/// closed alone; the listener goes on.
///
/// On a graceful shutdown it stops listening and ends its connections at once, so that none holds the process up: a
/// plain HTTP connection finishes the response under way and closes (a load balancer and a browser keep them open
/// for a minute), a WebSocket is closed (a page then retries until the server is back). corkd stops the board server
/// first (`Serve.swift`): its health turns 503 and its sessions, those of the web pages included, get `bye`.
public struct WebServer: Service {
    let configuration: WebConfiguration
    let accepted: AcceptedConnections
    let logger: Logger
    let onListening: @Sendable (SocketAddress) async -> Void
    /// The boards' views shared by the web sessions, and their clients' confirmed boards.
    let views = BoardViews()
    /// The connections open now, for the shutdown.
    let connections = WebConnections()
    /// Closes the listener without dropping a connection it accepted (``BoardTransport/ListenerDrain``).
    let drain = ListenerDrain()
    /// The listener ``listen()`` bound before the services start, for ``run()``.
    let bound = BoundListener()

    /// A listener bound ahead of ``run()``, taken once.
    final class BoundListener: Sendable {
        private let listener = Mutex<NIOAsyncChannel<EventLoopFuture<Arrival>, Never>?>(nil)
        func keep(_ channel: NIOAsyncChannel<EventLoopFuture<Arrival>, Never>) { listener.withLock { $0 = channel } }
        func take() -> NIOAsyncChannel<EventLoopFuture<Arrival>, Never>? { listener.withLock { $0.take() } }
    }

    public init(
        configuration: WebConfiguration, accepted: AcceptedConnections, logger: Logger,
        onListening: @escaping @Sendable (SocketAddress) async -> Void = { _ in }
    ) {
        self.configuration = configuration
        self.accepted = accepted
        self.logger = logger
        self.onListening = onListening
    }

    /// What an accepted connection turned out to be.
    enum Arrival: Sendable {
        case http(NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>)
        case protocolLines(NIOAsyncChannel<ByteBuffer, ByteBuffer>, address: String)
        case live(NIOAsyncChannel<ByteBuffer, ByteBuffer>, token: String, address: String)
    }

    /// Binds the listener now, before any service starts, so that a taken port stops corkd before the board server
    /// has listened, printed its banner and written `owner.url`. ``run()`` serves it (and binds itself when this was
    /// not called).
    public func listen() async throws {
        bound.keep(try await checkedBind())
    }

    private func checkedBind() async throws -> NIOAsyncChannel<EventLoopFuture<Arrival>, Never> {
        if configuration.tls == nil, !WebConfiguration.isLoopback(configuration.host) {
            throw WebError(
                "the web listener serves plain HTTP only on a loopback address; \(configuration.host) needs TLS (--cert/--key, or the server's own certificate)")
        }
        do {
            return try await bind()
        } catch {
            throw WebError(
                "cannot listen for the web page on \(configuration.host):\(configuration.port): "
                    + BoardServer.describeBindFailure(error, portOption: "--web-port", hostOption: "--web-host"))
        }
    }

    public func run() async throws {
        let listener: NIOAsyncChannel<EventLoopFuture<Arrival>, Never>
        if let prebound = bound.take() { listener = prebound } else { listener = try await checkedBind() }
        if let address = listener.channel.localAddress { await onListening(address) }
        logger.info("web page listening", metadata: ["address": "\(listener.channel.localAddress?.description ?? "?")"])
        await withDiscardingTaskGroup { tasks in
            await withGracefulShutdownHandler {
                do {
                    try await listener.executeThenClose { inbound in
                        for try await arrival in inbound {
                            drain.taken()
                            tasks.addTask { await self.handle(arrival) }
                        }
                    }
                } catch is CancellationError {
                    // The server is stopping (or failed to start elsewhere): not the listener's own failure.
                    logger.debug("the web listener stopped with the server")
                } catch {
                    logger.error("the web listener stopped", metadata: ["error": "\(error)"])
                }
            } onGracefulShutdown: {
                let drain = self.drain
                Task { await drain.close(listener.channel) }
                self.connections.stop()
            }
        }
    }

    private func bind() async throws -> NIOAsyncChannel<EventLoopFuture<Arrival>, Never> {
        let configuration = self.configuration
        let logger = self.logger
        let connections = self.connections
        let drain = self.drain
        return try await ServerBootstrap(group: configuration.group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelInitializer { listener in drain.watchListener(listener) }
            .bind(host: configuration.host, port: configuration.port) { channel in
                connections.accepted(channel)
                return channel.eventLoop.makeCompletedFuture {
                    do {
                        return try Self.configure(channel, configuration)
                    } catch {
                        drain.failed()
                        logger.warning("a web connection failed its set-up", metadata: ["error": "\(error)"])
                        channel.close(promise: nil)
                        throw error
                    }
                }
            }
    }

    /// TLS (when configured), HTTP/1.1 and the WebSocket upgrade of `/v1` and `/live`.
    static func configure(_ channel: any Channel, _ configuration: WebConfiguration) throws -> EventLoopFuture<Arrival> {
        if let tls = configuration.tls {
            try channel.pipeline.syncOperations.addHandler(PlainHTTPRedirect())
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls))
        }
        try channel.syncOptions?.setOption(.tcpOption(.tcp_nodelay), value: 1)
        try channel.syncOptions?.setOption(.recvAllocator, value: Transport.serverReceiveBuffers)
        let limits = configuration.limits
        let upgrader = NIOTypedWebSocketServerUpgrader<Arrival>(
            maxFrameSize: limits.lineMax + 16,
            // Frame errors reach WebSocketLines, which answers an oversized message as TLS answers a long line.
            enableAutomaticErrorHandling: false,
            // A refused upgrade goes on as plain HTTP and is answered 403 there (WebPages).
            shouldUpgrade: { channel, head in
                channel.eventLoop.makeSucceededFuture(Self.refusal(head, configuration) == nil ? HTTPHeaders() : nil)
            },
            upgradePipelineHandler: { channel, head in
                channel.eventLoop.makeCompletedFuture {
                    let address = channel.remoteAddress?.ipAddress ?? "?"
                    let path = Self.path(of: head.uri)
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(
                        NIOWebSocketFrameAggregator(
                            minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1_024,
                            maxAccumulatedFrameSize: limits.lineMax))
                    let transport = TransportLimits(wire: limits)
                    if path == "/v1" {
                        try pipeline.addHandler(WebSocketLines(preauthLineMax: limits.preauthLineMax, lineMax: limits.lineMax))
                        try pipeline.addHandler(OutboxHandler(limits: transport, finalLine: BoardServer.slowConsumerLine(limits)))
                        if let heartbeat = transport.heartbeat {
                            try pipeline.addHandler(
                                HeartbeatHandler(interval: heartbeat, pingLine: ByteBuffer(string: #"{"type":"ping"}"# + "\n")))
                        }
                        return .protocolLines(try NIOAsyncChannel(wrappingChannelSynchronously: channel), address: address)
                    }
                    // `/live`: the page's channel; refusal() has checked the cookie.
                    let token = Self.token(in: head, configuration.cookie) ?? ""
                    try pipeline.addHandler(WebSocketKeepAlive(interval: .seconds(30)))
                    try pipeline.addHandler(WebSocketLines(preauthLineMax: limits.lineMax, lineMax: limits.lineMax))
                    try pipeline.addHandler(
                        OutboxHandler(
                            preauthOutboxBytes: max(limits.outboxBytes, 8 << 20), outboxBytes: max(limits.outboxBytes, 8 << 20),
                            writeTimeout: transport.writeTimeout, finalLine: nil))
                    return .live(try NIOAsyncChannel(wrappingChannelSynchronously: channel), token: token, address: address)
                }
            })
        var pipeline = NIOUpgradableHTTPServerPipelineConfiguration(
            upgradeConfiguration: NIOTypedHTTPServerUpgradeConfiguration(
                upgraders: [upgrader],
                notUpgradingCompletionHandler: { channel in
                    channel.eventLoop.makeCompletedFuture {
                        // A kept-alive connection that sends nothing for a minute is closed.
                        try channel.pipeline.syncOperations.addHandler(IdleStateHandler(readTimeout: .seconds(60)))
                        try channel.pipeline.syncOperations.addHandler(CloseWhenIdle())
                        return .http(try NIOAsyncChannel(wrappingChannelSynchronously: channel))
                    }
                }))
        pipeline.enablePipelining = true
        return try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(configuration: pipeline)
    }

    /// Why a WebSocket is refused, or nil when it may go on: `/v1` from no browser, the page's own origin or an
    /// allowed one; `/live` only from the page's own origin and with a cookie this server sealed.
    static func refusal(_ head: HTTPRequestHead, _ configuration: WebConfiguration) -> String? {
        let origin = head.headers.first(name: "origin")
        let sameOrigin = origin.map { isSameOrigin($0, host: head.headers.first(name: "host")) } ?? false
        switch path(of: head.uri) {
        case "/v1":
            guard let origin, !sameOrigin, !configuration.allowedOrigins.contains(origin) else { return nil }
            return "origin not allowed"
        case "/live":
            guard sameOrigin else { return "origin not allowed" }
            return token(in: head, configuration.cookie) == nil ? "no session; open your invite link" : nil
        default:
            return "no WebSocket at this path"
        }
    }

    /// Whether a browser's `Origin` names the host the request was sent to (`Host`). The scheme is not compared:
    /// behind a proxy that terminates TLS the page's origin is `https://` while this listener speaks plain HTTP.
    static func isSameOrigin(_ origin: String, host: String?) -> Bool {
        guard let host, let separator = origin.range(of: "://") else { return false }
        return origin[separator.upperBound...].lowercased() == host.lowercased()
    }

    /// Whether the page reached this request over TLS: this listener's own, or a proxy's that says so.
    static func isSecure(_ head: HTTPRequestHead, _ configuration: WebConfiguration) -> Bool {
        configuration.tls != nil || head.headers.first(name: "x-forwarded-proto")?.lowercased() == "https"
    }

    static func token(in head: HTTPRequestHead, _ cookie: WebCookie) -> String? {
        for header in head.headers["cookie"] {
            if let value = WebCookie.value(inCookieHeader: header), let token = cookie.open(value) { return token }
        }
        return nil
    }

    static func path(of uri: String) -> String {
        String(uri.prefix { $0 != "?" && $0 != "#" })
    }

    private func handle(_ arrival: EventLoopFuture<Arrival>) async {
        let connection: Arrival
        do {
            connection = try await arrival.get()
        } catch {
            logger.debug("a web connection ended before its first request", metadata: ["error": "\(error)"])
            return
        }
        switch connection {
        case .http(let http):
            await WebPages(configuration: configuration, logger: logger).serve(http)
        case .protocolLines(let lines, let address):
            connections.upgraded(lines.channel)
            accepted.serve(lines, address: address)
        case .live(let page, let token, let address):
            connections.upgraded(page.channel)
            await LiveSession.run(
                page: page, configuration: clientConfiguration(token: token, address: address, loop: page.channel.eventLoop),
                views: views, version: configuration.version, logger: logger)
        }
    }

    /// A web session's client: the user's token, an in-process connection to this server, no journal (the page keeps
    /// what it did while offline).
    func clientConfiguration(token: String, address: String, loop: any EventLoop) -> ClientConfiguration {
        var client = ClientConfiguration(
            endpoints: [.init(host: "in-process", port: 0)], trust: .systemRoots, token: token, board: nil)
        client.clientName = "corkboard-web/\(configuration.version)"
        client.eventLoopGroup = loop
        let accepted = self.accepted
        let limits = configuration.limits
        client.connector = { _ in
            let pair = try await Transport.connectedPair(
                on: loop, serverLimits: TransportLimits(wire: limits), clientLimits: .client,
                slowConsumerLine: BoardServer.slowConsumerLine(limits))
            guard accepted.serve(pair.server, address: address) else {
                try? await pair.client.executeThenClose { _, _ in }
                throw WebError("the server is stopping")
            }
            return pair.client
        }
        return client
    }
}

/// Closes a connection on `IdleStateHandler`'s read timeout.
final class CloseWhenIdle: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) { context.fireChannelRead(data) }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}

/// The web listener's open connections, so that a shutdown can end them (see ``WebServer``): a connection still
/// speaking HTTP is asked to quiesce (NIO's HTTP pipeline closes it once its response under way is written, at once
/// when idle; one that has not sent a request yet is idle), a WebSocket is closed.
final class WebConnections: Sendable {
    private struct Entry {
        let channel: any Channel
        var upgraded = false
    }

    private let state = Mutex<(open: [ObjectIdentifier: Entry], stopping: Bool)>(([:], false))

    /// A connection was accepted; forgotten again when it closes. One accepted during the shutdown is ended at once.
    func accepted(_ channel: any Channel) {
        let stopping = state.withLock { state in
            if !state.stopping { state.open[ObjectIdentifier(channel)] = Entry(channel: channel) }
            return state.stopping
        }
        if stopping { Self.end(Entry(channel: channel)) }
        channel.closeFuture.whenComplete { _ in
            self.state.withLock { _ = $0.open.removeValue(forKey: ObjectIdentifier(channel)) }
        }
    }

    /// The connection became a WebSocket.
    func upgraded(_ channel: any Channel) {
        let stopping = state.withLock { state in
            state.open[ObjectIdentifier(channel)]?.upgraded = true
            return state.stopping
        }
        if stopping { channel.close(promise: nil) }
    }

    /// Ends every open connection, and from now on every new one.
    func stop() {
        let open = state.withLock { state in
            state.stopping = true
            return Array(state.open.values)
        }
        for entry in open { Self.end(entry) }
    }

    /// How many connections are open (tests).
    var count: Int { state.withLock { $0.open.count } }

    private static func end(_ entry: Entry) {
        let channel = entry.channel
        if entry.upgraded {
            channel.close(promise: nil)
        } else {
            channel.eventLoop.execute { channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent()) }
        }
    }
}

/// How ServiceLifecycle names the listener in its debug log.
extension WebServer: CustomStringConvertible {
    public var description: String { "WebServer(\(configuration.host), port \(configuration.port))" }
}
