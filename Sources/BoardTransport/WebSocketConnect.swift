import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

extension Transport {
    /// The server answered the WebSocket upgrade with something else than `101 Switching Protocols`.
    public struct WebSocketUpgradeRefused: Error, CustomStringConvertible {
        public var description: String { "the server refused the WebSocket upgrade" }
    }

    /// Opens a plain WebSocket (`ws://host:port/path`, no TLS) with the given extra request headers (`Origin`,
    /// `Cookie`) and returns its frames, whole (fragments put together, up to `maxFrameSize`). For the load
    /// generator's web sessions and the tests, which talk to a loopback address; the caller answers pings and
    /// closes.
    public static func connectWebSocket(
        host: String, port: Int, path: String, headers: [(String, String)] = [], group: any EventLoopGroup,
        maxFrameSize: Int = 16 << 20
    ) async throws -> NIOAsyncChannel<WebSocketFrame, WebSocketFrame> {
        let upgrade = try await ClientBootstrap(group: group)
            .connectTimeout(.seconds(10))
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try setNoDelay(channel)
                    var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path)
                    head.headers.add(name: "Host", value: "\(host):\(port)")
                    for (name, value) in headers { head.headers.add(name: name, value: value) }
                    let upgrader = NIOTypedWebSocketClientUpgrader<WebSocketUpgrade>(maxFrameSize: maxFrameSize) { channel, _ in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(
                                NIOWebSocketFrameAggregator(
                                    minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1_024, maxAccumulatedFrameSize: maxFrameSize))
                            return .upgraded(try NIOAsyncChannel(wrappingChannelSynchronously: channel))
                        }
                    }
                    var configuration = NIOUpgradableHTTPClientPipelineConfiguration(
                        upgradeConfiguration: NIOTypedHTTPClientUpgradeConfiguration(
                            upgradeRequestHead: head, upgraders: [upgrader],
                            notUpgradingCompletionHandler: { channel in
                                channel.eventLoop.makeSucceededFuture(.refused(channel))
                            }))
                    // Frames the server sent right behind its 101 (a close, a first message) may arrive in the same
                    // read: they belong to the WebSocket, not to the HTTP answer.
                    configuration.leftOverBytesStrategy = .forwardBytes
                    return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: configuration)
                }
            }
        switch try await upgrade.get() {
        case .upgraded(let frames):
            return frames
        case .refused(let channel):
            try? await channel.close()
            throw WebSocketUpgradeRefused()
        }
    }

    enum WebSocketUpgrade: Sendable {
        case upgraded(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>)
        case refused(any Channel)
    }
}
