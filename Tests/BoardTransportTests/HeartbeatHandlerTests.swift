import BoardTransport
import NIOCore
import NIOEmbedded
import Testing

/// `HeartbeatHandler` on an `EmbeddedChannel` with the event loop's manual time (tier 2): a ping every interval,
/// and a connection from which no line has arrived for exactly two intervals is closed (Protocol.md, "Connection
/// lifecycle").
@Suite("HeartbeatHandler")
struct HeartbeatHandlerTests {
    static let ping = ByteBuffer(string: #"{"type":"ping"}"# + "\n")

    func connected(interval: TimeAmount = .seconds(30)) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(HeartbeatHandler(interval: interval, pingLine: Self.ping))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return channel
    }

    @Test("a peer silent for two intervals after its last line is closed then, not at the third tick")
    func closesAtTwoIntervalsAfterTheLastLine() throws {
        let channel = try connected()
        let loop = channel.embeddedEventLoop
        loop.advanceTime(by: .seconds(1))
        try channel.writeInbound(ByteBuffer(string: "hello"))  // the last line, 1 s after connecting
        loop.advanceTime(by: .seconds(60) - .milliseconds(1))
        #expect(channel.isActive, "still inside two intervals of the last line")
        loop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive, "two intervals after the last line")
    }

    @Test("a peer that never sends a line is closed two intervals after the connection opened")
    func closesASilentConnection() throws {
        let channel = try connected(interval: .milliseconds(200))
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(399))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive)
    }

    @Test("pings every interval, and any line within two intervals keeps the connection")
    func pingsAndStaysOpenWhileLinesArrive() throws {
        let channel = try connected()
        let loop = channel.embeddedEventLoop
        var pings = 0
        for _ in 0..<10 {
            loop.advanceTime(by: .seconds(55))
            try channel.writeInbound(ByteBuffer(string: "pong"))
            while let line = try channel.readOutbound(as: ByteBuffer.self) {
                #expect(line == Self.ping)
                pings += 1
            }
        }
        #expect(channel.isActive, "a line every 55 s is within two intervals")
        #expect(pings == 18, "one ping per 30 s over 550 s")
        _ = try channel.finish()
    }
}
