import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A TCP relay on 127.0.0.1 port 0 in front of a server, so a test can cut every connection mid-session (a network
/// drop, as the client sees it) and watch the client reconnect and resume. Bytes pass through untouched (TLS included).
public final class TCPProxy: Sendable {
    /// Where the proxy listens.
    public let port: Int
    private let listener: any Channel
    private let live: NIOLockedValueBox<[any Channel]>

    private init(port: Int, listener: any Channel, live: NIOLockedValueBox<[any Channel]>) {
        self.port = port
        self.listener = listener
        self.live = live
    }

    /// Starts relaying to 127.0.0.1:`target`.
    public static func start(to target: Int) async throws -> TCPProxy {
        let live = NIOLockedValueBox<[any Channel]>([])
        let group = MultiThreadedEventLoopGroup.singleton
        let listener = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { inbound in
                ClientBootstrap(group: inbound.eventLoop)
                    .connect(host: "127.0.0.1", port: target)
                    .flatMap { outbound in
                        live.withLockedValue { $0 += [inbound, outbound] }
                        return inbound.pipeline.addHandler(Relay(to: outbound)).flatMap {
                            outbound.pipeline.addHandler(Relay(to: inbound))
                        }
                    }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return TCPProxy(port: listener.localAddress?.port ?? 0, listener: listener, live: live)
    }

    /// Closes every relayed connection (both sides); new connections are still accepted.
    public func cutAll() {
        let channels = live.withLockedValue { channels in
            defer { channels = [] }
            return channels
        }
        for channel in channels { channel.close(promise: nil) }
    }

    /// Stops listening and closes everything.
    public func stop() async {
        cutAll()
        try? await listener.close()
    }
}

/// Forwards what one side reads to the other side, and closes the other side when this one closes.
private final class Relay: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let peer: any Channel

    init(to peer: any Channel) {
        self.peer = peer
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        peer.writeAndFlush(unwrapInboundIn(data), promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        peer.close(promise: nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
