#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import NIOCore
import NIOPosix
import NIOSSL

/// The one place where a Corkboard connection's pipeline is assembled, for the server, the client and the tests.
///
/// From the socket inwards:
/// 1. `NIOSSLServerHandler` / `NIOSSLClientHandler` (TLS 1.2+, see ``TLSSetup``);
/// 2. on the client with a pinned certificate, the pin check;
/// 3. ``HandshakeTimeoutHandler`` (it must come after the TLS handler, which fires `handshakeCompleted` inwards);
/// 4. ``LineFramer`` (bounded lines with a completion deadline);
/// 5. ``OutboxHandler`` (bounded outbox with a write deadline);
/// 6. ``HeartbeatHandler`` when `limits.heartbeat` is set (the server: ping every interval, close a silent peer);
/// 7. `NIOAsyncChannel<ByteBuffer, ByteBuffer>`: inbound, one line per buffer without its `\n`; outbound, bytes
///    written as they are (each message a line ending in `\n`).
///
/// Session logic lives in async code on the `NIOAsyncChannel`, never in a handler. After `welcome`, the session
/// sends ``FramingCommand/authenticated`` with `channel.triggerUserOutboundEvent` to raise the line and outbox caps.
/// A `TransportError` thrown by the inbound stream says why the pipeline gave up; its `wireCode` is the `error`
/// line to send before closing.
public enum Transport {
    /// Installs the server pipeline on a freshly accepted channel; call it on the channel's event loop (inside
    /// `childChannelInitializer`).
    ///
    /// `slowConsumerLine` is the line the outbox writes before closing a slow consumer (see ``OutboxHandler``).
    public static func configureServerChannel(
        _ channel: any Channel, tls: NIOSSLContext, limits: TransportLimits, slowConsumerLine: ByteBuffer
    ) throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        try configure(
            channel, tlsHandler: NIOSSLServerHandler(context: tls), pinning: nil, limits: limits,
            finalLine: slowConsumerLine, handshakeCompletion: nil)
    }

    /// Installs the client pipeline on a channel before it connects; call it on the channel's event loop (inside
    /// `channelInitializer`).
    ///
    /// `serverHostname` is sent as SNI and checked against the certificate in the CA modes; an IP literal is not
    /// sent as SNI (TLS forbids it) and the peer's address is matched against the certificate's IP SANs instead.
    /// The returned channel is usable once the TLS handshake completes; ``connect(host:port:group:tls:serverHostname:limits:)``
    /// waits for that and reports a failed verification as its error.
    public static func configureClientChannel(
        _ channel: any Channel, tls: ClientTLS, serverHostname: String?, limits: TransportLimits
    ) throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        try configureClient(channel, tls: tls, serverHostname: serverHostname, limits: limits, handshake: nil)
    }

    /// Binds a TLS listener whose every accepted connection carries the server pipeline.
    ///
    /// The listener uses `SO_REUSEADDR` and a backlog of 256; port 0 picks a free port (read it from
    /// `channel.localAddress`). Iterate the returned channel's inbound stream inside `executeThenClose` to accept.
    ///
    /// Each accepted connection is set up on its own event loop: `TCP_NODELAY` (at the TCP level), small first receive
    /// buffers (``serverReceiveBuffers``) and the ``ConnectionAllocator``, then the pipeline.
    /// If that fails for one connection, only that connection is closed and `onChildFailure` is told why; the
    /// listener keeps accepting. (A failing child channel option would instead end the inbound stream: NIO reports
    /// option errors on the listener, which is why no option is set through `childChannelOption`.) `prepareChild`
    /// runs first, on the child's event loop; tests use it to make one connection's set-up fail. `drain` counts the
    /// connections accepted, for closing the listener without dropping one (``ListenerDrain``).
    public static func bindServer(
        host: String, port: Int, group: any EventLoopGroup, tls: NIOSSLContext, limits: TransportLimits,
        slowConsumerLine: ByteBuffer, drain: ListenerDrain? = nil,
        onChildFailure: @escaping @Sendable (any Error) -> Void = { _ in },
        prepareChild: @escaping @Sendable (any Channel) throws -> Void = { _ in }
    ) async throws -> NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never> {
        try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelInitializer { listener in drain?.watchListener(listener) ?? listener.eventLoop.makeSucceededVoidFuture() }
            .bind(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    do {
                        try prepareChild(channel)
                        try setNoDelay(channel)
                        try channel.syncOptions?.setOption(.recvAllocator, value: serverReceiveBuffers)
                        try channel.syncOptions?.setOption(.allocator, value: ConnectionAllocator.allocator)
                        return try configureServerChannel(
                            channel, tls: tls, limits: limits, slowConsumerLine: slowConsumerLine)
                    } catch {
                        // NIO drops a child whose initializer fails without closing it: close it here.
                        onChildFailure(error)
                        drain?.failed()
                        channel.close(promise: nil)
                        throw error
                    }
                }
            }
    }

    /// Connects to a server, completes the TLS handshake and returns the connection's line channel.
    ///
    /// `serverHostname` defaults to `host`. It throws when the TCP connect or the handshake fails, with the reason:
    /// a ``TransportError`` for a pin mismatch or a handshake timeout, a NIOSSL error for an unknown CA or a host
    /// name mismatch. The caller owns the returned channel (use `executeThenClose`).
    public static func connect(
        host: String, port: Int, group: any EventLoopGroup, tls: ClientTLS, serverHostname: String? = nil,
        limits: TransportLimits = .client
    ) async throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        let hostname = serverHostname ?? host
        let connection = try await ClientBootstrap(group: group)
            .connectTimeout(limits.handshakeTimeout)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try setNoDelay(channel)
                    let handshake = channel.eventLoop.makePromise(of: Void.self)
                    let lines = try configureClient(
                        channel, tls: tls, serverHostname: hostname, limits: limits, handshake: handshake)
                    return ClientConnection(lines: lines, handshake: handshake.futureResult)
                }
            }
        do {
            try await connection.handshake.get()
        } catch {
            // executeThenClose finishes the writer (NIO requires it before the channel goes away) and closes.
            try? await connection.lines.executeThenClose { _, _ in }
            throw error
        }
        return connection.lines
    }

    /// Connects like ``connect(host:port:group:tls:serverHostname:limits:)`` but ends the pipeline with the handler
    /// `makeHandler` creates (on the channel's event loop) instead of an `NIOAsyncChannel`: for clients that handle
    /// every line on the event loop, such as the load generator's thousands of subscribers. Returns once the TLS
    /// handshake has completed; the handler may write before that (TLS holds the bytes until it has).
    public static func connect(
        host: String, port: Int, group: any EventLoopGroup, tls: ClientTLS, serverHostname: String? = nil,
        limits: TransportLimits = .client, makeHandler: @escaping @Sendable () -> any ChannelHandler
    ) async throws -> any Channel {
        let hostname = serverHostname ?? host
        let connection = try await ClientBootstrap(group: group)
            .connectTimeout(limits.handshakeTimeout)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try setNoDelay(channel)
                    let handshake = channel.eventLoop.makePromise(of: Void.self)
                    let (tlsHandler, pinning) = try clientTLSHandler(tls, hostname: hostname)
                    try install(
                        channel, tlsHandler: tlsHandler, pinning: pinning, limits: limits, finalLine: nil,
                        handshakeCompletion: handshake)
                    try channel.pipeline.syncOperations.addHandler(makeHandler())
                    return HandledConnection(channel: channel, handshake: handshake.futureResult)
                }
            }
        do {
            try await connection.handshake.get()
        } catch {
            connection.channel.close(promise: nil)
            throw error
        }
        return connection.channel
    }

    private struct HandledConnection: Sendable {
        var channel: any Channel
        var handshake: EventLoopFuture<Void>
    }

    /// A connected pair of line channels inside this process, over a Unix socket pair (no TCP, no TLS): the
    /// server's end carries the server pipeline without TLS (line framing, the outbox with `slowConsumerLine`,
    /// heartbeats), the client's end the client's. Both live on `loop`. For a client the server runs itself, such as
    /// a web page's session; the caller hands the server's end to the server and owns the client's.
    public static func connectedPair(
        on loop: any EventLoop, serverLimits: TransportLimits, clientLimits: TransportLimits, slowConsumerLine: ByteBuffer
    ) async throws -> (server: NIOAsyncChannel<ByteBuffer, ByteBuffer>, client: NIOAsyncChannel<ByteBuffer, ByteBuffer>) {
        var fds: [Int32] = [-1, -1]
        #if canImport(Glibc)
        let kind = Int32(SOCK_STREAM.rawValue)
        #else
        let kind = SOCK_STREAM
        #endif
        guard socketpair(AF_UNIX, kind, 0, &fds) == 0 else {
            throw IOError(errnoCode: errno, reason: "socketpair")
        }
        let server: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            server = try await ClientBootstrap(group: loop).withConnectedSocket(fds[0]) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try installPlain(channel, limits: serverLimits, finalLine: slowConsumerLine)
                    return try NIOAsyncChannel(wrappingChannelSynchronously: channel)
                }
            }
        } catch {
            close(fds[1])
            throw error
        }
        do {
            let client = try await ClientBootstrap(group: loop).withConnectedSocket(fds[1]) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try installPlain(channel, limits: clientLimits, finalLine: nil)
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
            return (server, client)
        } catch {
            try? await server.executeThenClose { _, _ in }
            throw error
        }
    }

    /// Line framing, the outbox and heartbeats without TLS (``connectedPair(on:serverLimits:clientLimits:slowConsumerLine:)``).
    private static func installPlain(_ channel: any Channel, limits: TransportLimits, finalLine: ByteBuffer?) throws {
        try channel.syncOptions?.setOption(.recvAllocator, value: inProcessReceiveBuffers)
        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandler(LineFramer(limits: limits))
        try pipeline.addHandler(OutboxHandler(limits: limits, finalLine: finalLine))
        if let heartbeat = limits.heartbeat {
            try pipeline.addHandler(HeartbeatHandler(interval: heartbeat, pingLine: ByteBuffer(string: #"{"type":"ping"}"# + "\n")))
        }
    }

    // MARK: Internals

    /// The client's TLS handler for `hostname` (sent as SNI unless it is an IP literal), and its pin check.
    private static func clientTLSHandler(_ tls: ClientTLS, hostname: String?) throws -> (NIOSSLHandler, PinningHandler?) {
        let sni = hostname.flatMap { isIPLiteral($0) ? nil : $0 }
        switch tls.trust {
        case .pinned(let pin):
            let pinning = PinningHandler(pin: pin, hostname: hostname, renewalRoots: tls.renewalRoots)
            let handler = try NIOSSLClientHandler(
                context: tls.context, serverHostname: sni,
                customVerificationCallback: { certificates, promise in
                    pinning.verify(certificates, promise: promise)
                })
            return (handler, pinning)
        case .systemRoots, .roots:
            return (try NIOSSLClientHandler(context: tls.context, serverHostname: sni), nil)
        }
    }

    private struct ClientConnection: Sendable {
        var lines: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        var handshake: EventLoopFuture<Void>
    }

    private static func configureClient(
        _ channel: any Channel, tls: ClientTLS, serverHostname: String?, limits: TransportLimits,
        handshake: EventLoopPromise<Void>?
    ) throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        let (tlsHandler, pinning) = try clientTLSHandler(tls, hostname: serverHostname)
        return try configure(
            channel, tlsHandler: tlsHandler, pinning: pinning, limits: limits, finalLine: nil,
            handshakeCompletion: handshake)
    }

    /// The single pipeline builder behind both sides.
    private static func configure(
        _ channel: any Channel, tlsHandler: NIOSSLHandler, pinning: PinningHandler?, limits: TransportLimits,
        finalLine: ByteBuffer?, handshakeCompletion: EventLoopPromise<Void>?
    ) throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        try install(
            channel, tlsHandler: tlsHandler, pinning: pinning, limits: limits, finalLine: finalLine,
            handshakeCompletion: handshakeCompletion)
        return try NIOAsyncChannel(wrappingChannelSynchronously: channel)
    }

    /// TLS, pinning, the handshake timeout, line framing, the outbox and heartbeats, in that order.
    private static func install(
        _ channel: any Channel, tlsHandler: NIOSSLHandler, pinning: PinningHandler?, limits: TransportLimits,
        finalLine: ByteBuffer?, handshakeCompletion: EventLoopPromise<Void>?
    ) throws {
        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandler(tlsHandler)
        if let pinning { try pipeline.addHandler(pinning) }
        try pipeline.addHandler(
            HandshakeTimeoutHandler(timeout: limits.handshakeTimeout, completion: handshakeCompletion))
        try pipeline.addHandler(LineFramer(limits: limits))
        try pipeline.addHandler(OutboxHandler(limits: limits, finalLine: finalLine))
        if let heartbeat = limits.heartbeat {
            try pipeline.addHandler(HeartbeatHandler(interval: heartbeat, pingLine: ByteBuffer(string: #"{"type":"ping"}"# + "\n")))
        }
    }

    /// The receive buffers of an accepted connection. NIO keeps each connection's last receive buffer for the next
    /// read, so an idle connection holds one for as long as it is open: starting at 512 bytes instead of NIO's 2 KiB
    /// keeps that small for the many connections that only ever send short lines, and the buffer still grows (to
    /// 64 KiB) for a connection whose reads fill it.
    public static let serverReceiveBuffers = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 65_536)

    /// The receive buffers of both ends of an in-process pair (``connectedPair(on:serverLimits:clientLimits:slowConsumerLine:)``),
    /// one pair per web session. NIO keeps a connection's receive buffer at the largest size it ever grew to, and
    /// the client's end reads the board's snapshot (hundreds of kilobytes) once: at the accepted connections' 64
    /// KiB maximum that kept 64 KiB per browser tab for good. A read from a local socket costs no round trip, so
    /// 8 KiB reads lose nothing.
    public static let inProcessReceiveBuffers = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 8_192)

    /// Turns Nagle's algorithm off: every line is written whole, and latency matters more than packet count.
    ///
    /// The option lives at `IPPROTO_TCP`. `ChannelOptions.socketOption` given the name `.tcp_nodelay` would set
    /// option 1 at `SOL_SOCKET`, which is `SO_DEBUG`: refused without `CAP_NET_ADMIN`, and useless for root, whose
    /// Nagle stays on.
    static func setNoDelay(_ channel: any Channel) throws {
        try channel.syncOptions?.setOption(.tcpOption(.tcp_nodelay), value: 1)
    }

    static func isIPLiteral(_ host: String) -> Bool {
        (try? SocketAddress(ipAddress: host, port: 0)) != nil
    }
}
