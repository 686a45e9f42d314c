import BoardTransport
import NIOCore
import NIOEmbedded
import NIOTLS
import Testing

@Suite("HandshakeTimeoutHandler")
struct HandshakeTimeoutHandlerTests {
    @Test("no handshakeCompleted within the timeout: handshake_timeout, then close")
    func timesOut() throws {
        let channel = EmbeddedChannel()
        let completion = channel.eventLoop.makePromise(of: Void.self)
        try channel.pipeline.syncOperations.addHandler(
            HandshakeTimeoutHandler(timeout: .seconds(5), completion: completion))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(4999))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive)
        let error = try #require(caughtTransportError(channel))
        #expect(error.code == .handshakeTimeout)
        #expect(error.wireCode == nil)
        #expect(throws: TransportError.self) { try embeddedResult(completion.futureResult)?.get() }
    }

    @Test("handshakeCompleted in time: the connection stays open and the handler leaves the pipeline")
    func completes() throws {
        let channel = EmbeddedChannel()
        let completion = channel.eventLoop.makePromise(of: Void.self)
        try channel.pipeline.syncOperations.addHandler(
            HandshakeTimeoutHandler(timeout: .seconds(5), completion: completion))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        channel.embeddedEventLoop.advanceTime(by: .seconds(4))
        channel.pipeline.fireUserInboundEventTriggered(TLSUserEvent.handshakeCompleted(negotiatedProtocol: nil))
        #expect(embeddedResult(completion.futureResult) != nil)
        channel.embeddedEventLoop.advanceTime(by: .seconds(60))
        #expect(channel.isActive)
        #expect(caughtTransportError(channel) == nil)
        #expect(throws: (any Error).self) {
            try channel.pipeline.syncOperations.handler(type: HandshakeTimeoutHandler.self)
        }
        _ = try channel.finish()
    }

    @Test("an error before the handshake completes is the completion's failure")
    func failsWithFirstError() throws {
        let channel = EmbeddedChannel()
        let completion = channel.eventLoop.makePromise(of: Void.self)
        try channel.pipeline.syncOperations.addHandler(
            HandshakeTimeoutHandler(timeout: .seconds(5), completion: completion))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        let pin = TransportError(.pinMismatch, "certificate fingerprint does not match")
        channel.pipeline.fireErrorCaught(pin)
        _ = try? channel.finish()
        #expect(throws: pin) { try embeddedResult(completion.futureResult)?.get() }
    }
}
