import NIOCore
import NIOEmbedded
import Testing

@testable import BoardWeb

/// Plain HTTP on the HTTPS web port (a browser given `host:port` without a scheme) is redirected, not met with an
/// empty reply; TLS goes on untouched.
@Suite struct PlainHTTPRedirectTests {
    /// A stand-in for the TLS handler: keeps what reaches it.
    final class Recorder: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        var received: [ByteBuffer] = []
        func channelRead(context: ChannelHandlerContext, data: NIOAny) { received.append(unwrapInboundIn(data)) }
    }

    @Test func aPlainHTTPRequestIsRedirectedToHTTPSAndClosed() throws {
        let channel = EmbeddedChannel()
        let recorder = Recorder()
        try channel.pipeline.syncOperations.addHandlers([PlainHTTPRedirect(), recorder])
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        try channel.writeInbound(ByteBuffer(string: "GET /#board=main HTTP/1.1\r\nHost: board.example.com:7421\r\nUser-Agent: x\r\n\r\n"))
        let answer = try #require(try channel.readOutbound(as: ByteBuffer.self))
        let text = String(buffer: answer)
        #expect(text.hasPrefix("HTTP/1.1 301 Moved Permanently\r\n"), "\(text)")
        #expect(text.contains("\r\nLocation: https://board.example.com:7421/#board=main\r\n"), "\(text)")
        #expect(recorder.received.isEmpty, "nothing reached TLS")
        #expect(!channel.isActive, "closed after the answer")
    }

    @Test func aRequestWithoutAHostGetsA400ThatNamesHTTPS() {
        let text = PlainHTTPRedirect.response(to: "GET / HTTP/1.0\r\n\r\n")
        #expect(text.hasPrefix("HTTP/1.1 400 Bad Request\r\n") && text.hasSuffix("open it with https://\n"), "\(text)")
    }

    @Test func aTLSConnectionGoesOnUnchangedAndTheCheckLeaves() throws {
        let channel = EmbeddedChannel()
        let recorder = Recorder()
        try channel.pipeline.syncOperations.addHandlers([PlainHTTPRedirect(), recorder])
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        let hello = ByteBuffer(bytes: [0x16, 0x03, 0x01, 0x00, 0x05, 1, 2, 3, 4, 5])
        try channel.writeInbound(hello)
        try channel.writeInbound(ByteBuffer(bytes: [0x17, 0x03, 0x03]))
        #expect(recorder.received == [hello, ByteBuffer(bytes: [0x17, 0x03, 0x03])])
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil)
        #expect((try? channel.pipeline.syncOperations.handler(type: PlainHTTPRedirect.self)) == nil, "the check left the pipeline")
        #expect(channel.isActive)
    }
}
