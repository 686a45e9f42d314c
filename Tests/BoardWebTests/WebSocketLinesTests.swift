import BoardTransport
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import BoardWeb

/// The WebSocket ⇄ lines adapter on an embedded channel: what the session code sees and what the peer gets.
@Suite struct WebSocketLinesTests {
    func channel(preauth: Int = 16, max: Int = 64) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(WebSocketLines(preauthLineMax: preauth, lineMax: max))
        return channel
    }

    func text(_ string: String) -> WebSocketFrame {
        WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: string))
    }

    @Test func aTextMessageIsOneLineWithoutItsNewline() throws {
        let channel = try channel()
        try channel.writeInbound(text(#"{"a":1}"#))
        try channel.writeInbound(text("{\"b\":2}\r\n"))
        #expect(try channel.readInbound(as: ByteBuffer.self).map { String(buffer: $0) } == #"{"a":1}"#)
        #expect(try channel.readInbound(as: ByteBuffer.self).map { String(buffer: $0) } == #"{"b":2}"#)
    }

    @Test func eachLineWrittenIsOneTextMessage() throws {
        let channel = try channel()
        try channel.writeOutbound(ByteBuffer(string: "{\"x\":1}\n{\"y\":2}\n"))
        let first = try #require(try channel.readOutbound(as: WebSocketFrame.self))
        let second = try #require(try channel.readOutbound(as: WebSocketFrame.self))
        #expect(first.opcode == .text && String(buffer: first.data) == #"{"x":1}"#)
        #expect(second.opcode == .text && String(buffer: second.data) == #"{"y":2}"#)
        #expect(try channel.readOutbound(as: WebSocketFrame.self) == nil)
    }

    @Test func anEmptyWriteCompletesWithoutAMessage() throws {
        let channel = try channel()
        let promise = channel.eventLoop.makePromise(of: Void.self)
        channel.write(ByteBuffer(), promise: promise)
        channel.flush()
        try promise.futureResult.wait()
        #expect(try channel.readOutbound(as: WebSocketFrame.self) == nil)
    }

    @Test func aPingIsAnsweredWithItsData() throws {
        let channel = try channel()
        try channel.writeInbound(WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer(string: "hi")))
        let pong = try #require(try channel.readOutbound(as: WebSocketFrame.self))
        #expect(pong.opcode == .pong && String(buffer: pong.data) == "hi")
        #expect(try channel.readInbound(as: ByteBuffer.self) == nil)
    }

    @Test func aBinaryMessageClosesWith1003() throws {
        let channel = try channel()
        try channel.writeInbound(WebSocketFrame(fin: true, opcode: .binary, data: ByteBuffer(string: "x")))
        var close = try #require(try channel.readOutbound(as: WebSocketFrame.self))
        #expect(close.opcode == .connectionClose)
        #expect(close.data.readWebSocketErrorCode() == .unacceptableData)
        #expect(!channel.isActive)
    }

    @Test func theLineCapRisesOnlyOnceAuthenticated() throws {
        let channel = try channel(preauth: 8, max: 32)
        var caught: (any Error)?
        try channel.pipeline.syncOperations.addHandler(ErrorCatcher { caught = $0 })
        try channel.writeInbound(text(String(repeating: "a", count: 20)))
        #expect((caught as? TransportError)?.code == .lineTooLong)
        #expect(try channel.readInbound(as: ByteBuffer.self) == nil)
        caught = nil
        channel.triggerUserOutboundEvent(FramingCommand.authenticated, promise: nil)
        try channel.writeInbound(text(String(repeating: "a", count: 20)))
        #expect(caught == nil)
        #expect(try channel.readInbound(as: ByteBuffer.self)?.readableBytes == 20)
    }

    @Test func endInputDropsWhatFollowsAndEndsTheStream() throws {
        let channel = try channel()
        var events: [String] = []
        try channel.pipeline.syncOperations.addHandler(ErrorCatcher(onEvent: { events.append("\($0)") }))
        channel.triggerUserOutboundEvent(FramingCommand.endInput, promise: nil)
        try channel.writeInbound(text("late"))
        #expect(try channel.readInbound(as: ByteBuffer.self) == nil)
        #expect(events.contains { $0.contains("inputClosed") })
    }

    @Test func aCloseIsAnsweredWithTheSameCodeAndCloses() throws {
        let channel = try channel()
        var data = ByteBuffer()
        data.write(webSocketErrorCode: .goingAway)
        try channel.writeInbound(WebSocketFrame(fin: true, opcode: .connectionClose, data: data))
        var reply = try #require(try channel.readOutbound(as: WebSocketFrame.self))
        #expect(reply.opcode == .connectionClose && reply.data.readWebSocketErrorCode() == .goingAway)
        #expect(!channel.isActive)
    }

    @Test func closingTheChannelSendsANormalClose() throws {
        let channel = try channel()
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        channel.close(promise: nil)
        var frame = try #require(try channel.readOutbound(as: WebSocketFrame.self))
        #expect(frame.opcode == .connectionClose && frame.data.readWebSocketErrorCode() == .normalClosure)
    }
}

/// Records what reaches the end of the pipeline.
final class ErrorCatcher: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let onError: (any Error) -> Void
    let onEvent: (Any) -> Void

    init(_ onError: @escaping (any Error) -> Void = { _ in }, onEvent: @escaping (Any) -> Void = { _ in }) {
        self.onError = onError
        self.onEvent = onEvent
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) { context.fireChannelRead(data) }
    func errorCaught(context: ChannelHandlerContext, error: any Error) { onError(error) }
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) { onEvent(event) }
}
