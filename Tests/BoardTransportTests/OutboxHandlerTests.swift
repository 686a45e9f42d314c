import BoardTransport
import NIOCore
import NIOEmbedded
import Testing

/// Stands in for a socket that has not written yet: keeps every write and its promise until the test completes it.
final class HeldWrites: ChannelOutboundHandler {
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    var held: [(buffer: ByteBuffer, promise: EventLoopPromise<Void>?)] = []
    var written: [String] = []
    var flushes = 0
    /// Whether a close reached this "socket" (read this rather than `channel.isActive` in `#expect`: a failed
    /// expectation describes its operands, and NIO's pipeline description traps on EmbeddedChannel).
    var closed = false

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let buffer = unwrapOutboundIn(data)
        written.append(text(buffer))
        held.append((buffer, promise))
    }

    func flush(context: ChannelHandlerContext) {
        flushes += 1
    }

    /// Completes the oldest `count` held writes, as if the socket took them.
    func complete(_ count: Int) {
        let done = held.prefix(count)
        held.removeFirst(min(count, held.count))
        for write in done { write.promise?.succeed(()) }
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        closed = true
        let pending = held
        held = []
        for write in pending { write.promise?.fail(ChannelError.ioOnClosedChannel) }
        context.close(mode: mode, promise: promise)
    }
}

@Suite("OutboxHandler")
struct OutboxHandlerTests {
    static let finalLine = #"{"type":"error","code":"slow_consumer","message":"too slow","retryable":true,"close":true}"#

    func makeChannel(
        preauth: Int = 100, outbox: Int = 1000, writeTimeout: TimeAmount = .seconds(10)
    ) throws -> (EmbeddedChannel, OutboxHandler, HeldWrites) {
        let held = HeldWrites()
        let outbox = OutboxHandler(
            preauthOutboxBytes: preauth, outboxBytes: outbox, writeTimeout: writeTimeout,
            finalLine: buffer(Self.finalLine))
        let channel = EmbeddedChannel(handlers: [held, outbox])
        _ = channel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 1))
        return (channel, outbox, held)
    }

    func bytes(_ count: Int) -> ByteBuffer { buffer(String(repeating: "x", count: count)) }

    @Test("pending bytes rise with writes and fall as each write completes; promises cascade")
    func accounting() throws {
        let (channel, outbox, held) = try makeChannel()
        let first = channel.eventLoop.makePromise(of: Void.self)
        channel.write(bytes(10), promise: first)
        channel.write(bytes(20), promise: nil)
        channel.writeAndFlush(bytes(30), promise: nil)
        #expect(outbox.pendingBytes == 60)
        #expect(embeddedResult(first.futureResult) == nil)
        held.complete(1)
        #expect(outbox.pendingBytes == 50)
        #expect(embeddedResult(first.futureResult) != nil)
        held.complete(2)
        #expect(outbox.pendingBytes == 0)
        #expect(channel.isActive)
        channel.embeddedEventLoop.run()
        let viaChannel = OutboxHandler.pendingBytes(on: channel)
        channel.embeddedEventLoop.run()
        #expect(try embeddedResult(viaChannel)?.get() == 0)
        #expect(caughtTransportError(channel) == nil)
        _ = try channel.finish()
    }

    /// The final line (90 bytes) goes out past the 100-byte cap with 60 bytes queued: it is never refused for room.
    @Test("passing the cap writes the final line past the cap, flushes, fires slow_consumer and closes once it is out")
    func overflow() throws {
        let (channel, outbox, held) = try makeChannel(preauth: 100)
        channel.write(bytes(60), promise: nil)
        let overflowing = channel.eventLoop.makePromise(of: Void.self)
        channel.write(bytes(41), promise: overflowing)
        #expect(held.written == [String(repeating: "x", count: 60), Self.finalLine + "\n"])
        #expect(held.flushes == 1)
        let error = try #require(caughtTransportError(channel))
        #expect(error.code == .slowConsumer)
        #expect(error.wireCode == .slowConsumer)
        #expect(throws: TransportError.self) { try embeddedResult(overflowing.futureResult)?.get() }
        held.complete(1)
        #expect(!held.closed, "the final line has not reached the socket yet: closing now would discard it")
        held.complete(1)
        #expect(held.closed, "closed once the final line was out")
        #expect(outbox.pendingBytes == 0)

        let later = channel.eventLoop.makePromise(of: Void.self)
        channel.write(bytes(1), promise: later)
        #expect(throws: (any Error).self) { try embeddedResult(later.futureResult)?.get() }
    }

    @Test("exactly the cap is allowed")
    func exactlyAtCap() throws {
        let (channel, outbox, held) = try makeChannel(preauth: 100)
        channel.writeAndFlush(bytes(100), promise: nil)
        #expect(outbox.pendingBytes == 100)
        #expect(channel.isActive)
        held.complete(1)
        _ = try channel.finish()
    }

    @Test("the cap rises after FramingCommand.authenticated")
    func capRises() throws {
        let (channel, outbox, held) = try makeChannel(preauth: 100, outbox: 1000)
        #expect(outbox.outboxBytes == 100)
        channel.triggerUserOutboundEvent(FramingCommand.authenticated, promise: nil)
        #expect(outbox.outboxBytes == 1000)
        channel.writeAndFlush(bytes(900), promise: nil)
        #expect(channel.isActive)
        channel.writeAndFlush(bytes(101), promise: nil)
        #expect(caughtTransportError(channel)?.code == .slowConsumer)
        #expect(held.written.last == Self.finalLine + "\n")
        held.complete(2)
        #expect(held.closed)
    }

    /// A peer that never reads again is closed `write_timeout` after the cut even though its final line is stuck.
    @Test("pending bytes and no completed write for write_timeout cut the connection; it closes write_timeout later")
    func writeDeadline() throws {
        let (channel, _, held) = try makeChannel(writeTimeout: .seconds(10))
        let loop = channel.embeddedEventLoop
        channel.writeAndFlush(bytes(10), promise: nil)
        loop.advanceTime(by: .seconds(9))
        #expect(channel.isActive)
        loop.advanceTime(by: .seconds(1))
        #expect(caughtTransportError(channel)?.code == .slowConsumer)
        #expect(held.written.last == Self.finalLine + "\n")
        loop.advanceTime(by: .seconds(9))
        #expect(!held.closed, "still waiting for the final line")
        loop.advanceTime(by: .seconds(1))
        #expect(held.closed, "closed at the end of the grace period although the line never went out")
    }

    @Test("a close asked for while the final line is on its way waits for it")
    func closeWaitsForFinalLine() throws {
        let (channel, _, held) = try makeChannel(preauth: 100)
        channel.writeAndFlush(bytes(101), promise: nil)
        #expect(held.written == [Self.finalLine + "\n"])
        let closed = channel.eventLoop.makePromise(of: Void.self)
        channel.close(promise: closed)
        #expect(!held.closed)
        #expect(embeddedResult(closed.futureResult) == nil)
        held.complete(1)
        #expect(held.closed)
        #expect((try? embeddedResult(closed.futureResult)?.get()) != nil, "the held close completed")
    }

    @Test("without a final line the cut closes at once")
    func noFinalLine() throws {
        let held = HeldWrites()
        let outbox = OutboxHandler(preauthOutboxBytes: 100, outboxBytes: 100, writeTimeout: .seconds(1), finalLine: nil)
        let channel = EmbeddedChannel(handlers: [held, outbox])
        _ = channel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 1))
        channel.writeAndFlush(bytes(101), promise: nil)
        #expect(held.written.isEmpty)
        #expect(held.closed)
        #expect(caughtTransportError(channel)?.code == .slowConsumer)
    }

    @Test("a completed write restarts the write deadline")
    func progressRestartsDeadline() throws {
        let (channel, _, held) = try makeChannel(writeTimeout: .seconds(10))
        let loop = channel.embeddedEventLoop
        channel.write(bytes(10), promise: nil)
        channel.writeAndFlush(bytes(10), promise: nil)
        loop.advanceTime(by: .seconds(6))
        held.complete(1)
        loop.advanceTime(by: .seconds(6))
        #expect(channel.isActive, "the last write completed 6 s ago")
        loop.advanceTime(by: .seconds(4))
        #expect(caughtTransportError(channel)?.code == .slowConsumer)
        held.complete(2)
        #expect(held.closed)
    }

    @Test("a peer that keeps up never trips the outbox, however long it runs")
    func normalFlow() throws {
        let (channel, outbox, held) = try makeChannel(preauth: 100, writeTimeout: .seconds(10))
        let loop = channel.embeddedEventLoop
        for _ in 0..<1000 {
            channel.write(bytes(40), promise: nil)
            channel.writeAndFlush(bytes(40), promise: nil)
            loop.advanceTime(by: .seconds(3))
            held.complete(2)
        }
        #expect(outbox.pendingBytes == 0)
        loop.advanceTime(by: .hours(1))
        #expect(channel.isActive)
        #expect(caughtTransportError(channel) == nil)
        _ = try channel.finish()
    }

    @Test("a final line without a newline gets one")
    func finalLineNewline() throws {
        let held = HeldWrites()
        let outbox = OutboxHandler(
            preauthOutboxBytes: 1, outboxBytes: 1, writeTimeout: .seconds(1), finalLine: buffer("bye"))
        let channel = EmbeddedChannel(handlers: [held, outbox])
        channel.writeAndFlush(bytes(2), promise: nil)
        #expect(held.written == ["bye\n"])
    }
}
