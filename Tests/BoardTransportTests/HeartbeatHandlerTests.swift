@testable import BoardTransport
import NIOCore
import NIOEmbedded
import NIOPosix
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

    /// `count` channels with heartbeats on one loop, all connected at the loop's current time.
    func connected(_ count: Int, on loop: EmbeddedEventLoop, interval: TimeAmount) throws -> [EmbeddedChannel] {
        try (0..<count).map { _ in
            let channel = EmbeddedChannel(loop: loop)
            try channel.pipeline.syncOperations.addHandler(HeartbeatHandler(interval: interval, pingLine: Self.ping))
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
            return channel
        }
    }

    func pings(_ channel: EmbeddedChannel) throws -> Int {
        var count = 0
        while let line = try channel.readOutbound(as: ByteBuffer.self) {
            #expect(line == Self.ping)
            count += 1
        }
        return count
    }

    @Test("connections on one loop share one schedule, each pinged and closed on its own times")
    func connectionsOnOneLoopKeepTheirOwnTimes() throws {
        let loop = EmbeddedEventLoop()
        let early = try connected(3, on: loop, interval: .seconds(30))
        loop.advanceTime(by: .seconds(10))
        let late = try connected(2, on: loop, interval: .seconds(30))
        let fast = try connected(1, on: loop, interval: .seconds(7))
        #expect(LoopTimers.existing(on: loop)?.count == 6)
        loop.advanceTime(by: .seconds(20))  // t = 30: the early ones ping, the late ones not yet
        #expect(try early.map(pings) == [1, 1, 1])
        #expect(try late.map(pings) == [0, 0])
        #expect(try pings(fast[0]) == 1, "pinged at 17; at 24 closed instead")
        #expect(!fast[0].isActive, "silent for 14 s, twice its interval")
        try late[0].writeInbound(ByteBuffer(string: "pong"))  // at 30
        loop.advanceTime(by: .seconds(10))  // t = 40
        #expect(try late.map(pings) == [1, 1])
        loop.advanceTime(by: .seconds(20) - .milliseconds(1))  // just before 60
        #expect(early.allSatisfy { $0.isActive })
        loop.advanceTime(by: .milliseconds(1))  // t = 60: the early ones' 60 s of silence
        #expect(early.allSatisfy { !$0.isActive })
        #expect(late.allSatisfy { $0.isActive })
        loop.advanceTime(by: .seconds(10))  // t = 70: the second late one's silence; the first spoke at 30
        #expect(late[0].isActive)
        #expect(!late[1].isActive)
        loop.advanceTime(by: .seconds(20))  // t = 90
        #expect(!late[0].isActive)
        #expect(LoopTimers.existing(on: loop) == nil, "the last connection gone, the schedule is too")
    }

    @Test("the schedule gives back its storage as connections close, and leaves with the last")
    func scheduleShrinksAndLeaves() throws {
        let loop = EmbeddedEventLoop()
        let channels = try connected(2_000, on: loop, interval: .seconds(30))
        let schedule = try #require(LoopTimers.existing(on: loop))
        #expect(schedule.count == 2_000)
        let full = schedule.capacity
        // Closed, not finished: `finish()` cancels every task of the (shared) loop, the schedule's timer with them.
        for channel in channels.dropLast(10) { try channel.close().wait() }
        #expect(schedule.count == 10)
        #expect(schedule.capacity < full / 8, "capacity \(schedule.capacity) after 1,990 of \(full) left")
        loop.advanceTime(by: .seconds(30))
        let pinged = try channels.suffix(10).map(pings)
        #expect(pinged == Array(repeating: 1, count: 10))
        for channel in channels.suffix(10) { try channel.close().wait() }
        #expect(LoopTimers.existing(on: loop) == nil)
    }

    /// An event loop can be held up (a burst of handshakes on two cores) until both the ping and the silence deadline
    /// have passed: the ping came due first, so it is written first, then the connection closes. The embedded loop
    /// runs every timer on time, so this one is a real connection whose server loop is held past both.
    @Test("a loop held past both deadlines writes the ping that came due first, then closes")
    func aLateBeatPingsBeforeItCloses() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server = try await ServerBootstrap(group: group)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        HeartbeatHandler(interval: .milliseconds(100), pingLine: Self.ping))
                    try channel.pipeline.syncOperations.addHandler(HoldsTheLoop(for: .milliseconds(400)))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let ended = group.next().makePromise(of: String.self)
        let client = try await ClientBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ReadsToTheEnd(ended))
                }
            }
            .connect(to: server.localAddress!).get()
        let bound = group.next().scheduleTask(in: .seconds(30)) { ended.fail(ChannelError.ioOnClosedChannel) }
        let received = try await ended.futureResult.get()
        bound.cancel()
        #expect(received == String(buffer: Self.ping), "what the server wrote before it closed: \(received)")
        try? await client.close()
        try? await server.close()
        try await group.shutdownGracefully()
    }

    /// Sleeps on the loop when the connection becomes active: nothing else on that loop runs meanwhile.
    final class HoldsTheLoop: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let hold: TimeAmount
        init(for hold: TimeAmount) { self.hold = hold }
        func channelActive(context: ChannelHandlerContext) {
            usleep(UInt32(hold.nanoseconds / 1_000))
            context.fireChannelActive()
        }
    }

    /// Keeps every byte read and gives them back when the server closes.
    final class ReadsToTheEnd: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let ended: EventLoopPromise<String>
        var text = ""
        init(_ ended: EventLoopPromise<String>) { self.ended = ended }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            text += String(buffer: unwrapInboundIn(data))
        }
        func channelInactive(context: ChannelHandlerContext) {
            ended.succeed(text)
        }
    }
}
