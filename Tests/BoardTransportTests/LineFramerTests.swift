import BoardTransport
import NIOCore
import NIOEmbedded
import Testing

/// Counts `read()` requests that pass through it towards the socket.
final class ReadCounter: ChannelOutboundHandler {
    typealias OutboundIn = ByteBuffer
    var reads = 0

    func read(context: ChannelHandlerContext) {
        reads += 1
        context.read()
    }
}

/// Counts `ChannelEvent.inputClosed` events that reach it.
final class InboundEvents: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    var inputClosed = 0

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .some(.inputClosed) = event as? ChannelEvent { inputClosed += 1 }
        context.fireUserInboundEventTriggered(event)
    }
}

@Suite("LineFramer")
struct LineFramerTests {
    static let sample = "alpha\nbeta\r\n\n\r\ngamma {\"x\":1}\nz\n"
    static let sampleLines = ["alpha", "beta", "gamma {\"x\":1}", "z"]

    func makeChannel(
        preauth: Int = 4096, lineMax: Int = 65536, timeout: TimeAmount? = .seconds(30)
    ) throws -> (EmbeddedChannel, LineFramer) {
        let framer = LineFramer(preauthLineMax: preauth, lineMax: lineMax, lineTimeout: timeout)
        let channel = EmbeddedChannel(handler: framer)
        return (channel, framer)
    }

    func feed(_ chunks: [ArraySlice<UInt8>], to channel: EmbeddedChannel) throws {
        for chunk in chunks {
            var buffer = channel.allocator.buffer(capacity: chunk.count)
            buffer.writeBytes(chunk)
            try channel.writeInbound(buffer)
        }
    }

    @Test("many lines in one read are all delivered; \\r\\n is stripped; empty lines are dropped")
    func oneRead() throws {
        let (channel, _) = try makeChannel()
        try channel.writeInbound(buffer(Self.sample))
        #expect(try inboundLines(channel) == Self.sampleLines)
        #expect(try channel.finish().isClean)
    }

    @Test("split at every pair of byte boundaries gives the same lines")
    func everySplit() throws {
        let bytes = Array(Self.sample.utf8)
        for first in 0...bytes.count {
            for second in first...bytes.count {
                let (channel, framer) = try makeChannel()
                try feed([bytes[..<first], bytes[first..<second], bytes[second...]], to: channel)
                #expect(try inboundLines(channel) == Self.sampleLines, "split at \(first), \(second)")
                #expect(framer.bufferedBytes == 0)
                #expect(try channel.finish().isClean)
            }
        }
    }

    @Test("drip-fed one byte at a time gives the same lines")
    func drip() throws {
        let (channel, framer) = try makeChannel()
        var lines: [String] = []
        for byte in Self.sample.utf8 {
            try feed([[byte]], to: channel)
            lines += try inboundLines(channel)
            #expect(framer.bufferedBytes <= 16)
        }
        #expect(lines == Self.sampleLines)
        #expect(try channel.finish().isClean)
    }

    @Test("lines from one read are slices of the read buffer, not copies")
    func zeroCopy() throws {
        let (channel, _) = try makeChannel()
        let original = buffer("ab\ncd\n")
        let base = original.withUnsafeReadableBytes { UInt(bitPattern: $0.baseAddress) }
        try channel.writeInbound(original)
        let first = try #require(try channel.readInbound(as: ByteBuffer.self))
        let second = try #require(try channel.readInbound(as: ByteBuffer.self))
        #expect(first.withUnsafeReadableBytes { UInt(bitPattern: $0.baseAddress) } == base)
        #expect(second.withUnsafeReadableBytes { UInt(bitPattern: $0.baseAddress) } == base + 3)
        #expect(try channel.finish().isClean)
    }

    @Test("a line of exactly the cap is accepted, also with \\r\\n and split before the \\r")
    func exactlyAtCap() throws {
        let line = String(repeating: "x", count: 16)
        let (channel, framer) = try makeChannel(preauth: 16)
        try channel.writeInbound(buffer(line + "\n" + line + "\r\n"))
        #expect(try inboundLines(channel) == [line, line])
        try channel.writeInbound(buffer(line))
        #expect(framer.bufferedBytes == 16)
        try channel.writeInbound(buffer("\r"))
        #expect(framer.bufferedBytes == 17)
        try channel.writeInbound(buffer("\n"))
        #expect(try inboundLines(channel) == [line])
        #expect(caughtTransportError(channel) == nil)
        #expect(try channel.finish().isClean)
    }

    @Test("cap + 1 in one read fails with line_too_long")
    func overCapInOneRead() throws {
        let (channel, framer) = try makeChannel(preauth: 16)
        deliver("ok\n" + String(repeating: "x", count: 17) + "\nlater\n", to: channel)
        #expect(try inboundLines(channel) == ["ok"])
        let error = try #require(caughtTransportError(channel))
        #expect(error.code == .lineTooLong)
        #expect(error.wireCode == .lineTooLong)
        #expect(framer.bufferedBytes == 0)
    }

    @Test("an endless line fails as soon as it passes the cap and never buffers more than the cap")
    func endlessLine() throws {
        let counter = ReadCounter()
        let framer = LineFramer(preauthLineMax: 16, lineMax: 64, lineTimeout: .seconds(30))
        let channel = EmbeddedChannel(handlers: [counter, framer])
        deliver(String(repeating: "x", count: 10), to: channel)
        deliver(String(repeating: "x", count: 6), to: channel)
        #expect(framer.bufferedBytes == 16)
        #expect(caughtTransportError(channel) == nil)
        deliver("y", to: channel)
        #expect(caughtTransportError(channel)?.code == .lineTooLong)
        #expect(framer.bufferedBytes == 0)

        // Everything after the failure is dropped, and no more reads are requested.
        channel.read()
        let readsAfterFailure = counter.reads
        for _ in 0..<100 {
            deliver(String(repeating: "z", count: 1024) + "\nline\n", to: channel)
            channel.read()
            #expect(framer.bufferedBytes == 0)
        }
        #expect(counter.reads == readsAfterFailure)
        #expect(try inboundLines(channel).isEmpty)
        #expect(caughtTransportError(channel) == nil, "the error is fired once")
    }

    @Test("a \\r inside an over-long line counts as content")
    func carriageReturnIsContentUnlessLast() throws {
        let (channel, _) = try makeChannel(preauth: 4)
        deliver("abcd\rx\n", to: channel)
        #expect(caughtTransportError(channel)?.code == .lineTooLong)
    }

    @Test("the cap rises from preauth_line_max to line_max after FramingCommand.authenticated")
    func capRisesAfterAuthentication() throws {
        let long = String(repeating: "x", count: 40)
        do {
            let (channel, _) = try makeChannel(preauth: 16, lineMax: 64)
            deliver(long + "\n", to: channel)
            #expect(caughtTransportError(channel)?.code == .lineTooLong)
        }
        let (channel, framer) = try makeChannel(preauth: 16, lineMax: 64)
        #expect(framer.lineMax == 16)
        let promise = channel.eventLoop.makePromise(of: Void.self)
        channel.triggerUserOutboundEvent(FramingCommand.authenticated, promise: promise)
        #expect(try embeddedResult(promise.futureResult)?.get() != nil)
        #expect(framer.lineMax == 64)
        deliver(long + "\n", to: channel)
        deliver(String(repeating: "y", count: 64) + "\n", to: channel)
        #expect(try inboundLines(channel) == [long, String(repeating: "y", count: 64)])
        deliver(String(repeating: "z", count: 65) + "\n", to: channel)
        #expect(caughtTransportError(channel)?.code == .lineTooLong)
    }

    @Test("after FramingCommand.endInput nothing more is read as a line, the input is closed once, and reading goes on")
    func endInputDropsWhatFollowsAndClosesTheInput() throws {
        let framer = LineFramer(preauthLineMax: 4096, lineMax: 65536, lineTimeout: .seconds(30))
        let (counter, events) = (ReadCounter(), InboundEvents())
        let channel = EmbeddedChannel(handlers: [counter, framer, events])
        deliver("before\npart", to: channel)
        for _ in 0..<2 {
            let promise = channel.eventLoop.makePromise(of: Void.self)
            channel.triggerUserOutboundEvent(FramingCommand.endInput, promise: promise)
            #expect(try embeddedResult(promise.futureResult)?.get() != nil)
        }
        deliver("ial\nafter\n", to: channel)
        #expect(try inboundLines(channel) == ["before"], "a revoked peer's later lines never reach the session")
        #expect(events.inputClosed == 1)
        let reads = counter.reads
        channel.read()
        #expect(counter.reads == reads + 1, "TLS must still see the peer's close_notify")
    }

    @Test("a line trickled over 31 s fails at 30 s even though bytes keep arriving")
    func trickleHitsDeadline() throws {
        let (channel, _) = try makeChannel(timeout: .seconds(30))
        var failedAt: Int?
        for second in 0...31 {
            if second > 0 { channel.embeddedEventLoop.advanceTime(by: .seconds(1)) }
            if let error = caughtTransportError(channel) {
                #expect(error.code == .lineTimeout)
                #expect(error.wireCode == .lineTimeout)
                failedAt = second
                break
            }
            try channel.writeInbound(buffer("x"))
        }
        #expect(failedAt == 30)
        #expect(try inboundLines(channel).isEmpty)
    }

    @Test("a complete line resets the clock; complete lines never trip it")
    func completeLineResetsClock() throws {
        let (channel, _) = try makeChannel(timeout: .seconds(30))
        let loop = channel.embeddedEventLoop
        // Many whole lines over a long time: no deadline applies.
        for _ in 0..<10 {
            try channel.writeInbound(buffer("{}\n"))
            loop.advanceTime(by: .seconds(29))
        }
        // A partial line, completed after 20 s, then a new partial line.
        try channel.writeInbound(buffer("ab"))
        loop.advanceTime(by: .seconds(20))
        try channel.writeInbound(buffer("c\nde"))
        loop.advanceTime(by: .seconds(20))
        #expect(caughtTransportError(channel) == nil, "the second line started 20 s ago")
        #expect(try inboundLines(channel) == Array(repeating: "{}", count: 10) + ["abc"])
        loop.advanceTime(by: .seconds(10))
        #expect(caughtTransportError(channel)?.code == .lineTimeout)
    }

    @Test("without a line timeout a partial line may wait forever")
    func noTimeout() throws {
        let (channel, framer) = try makeChannel(timeout: nil)
        try channel.writeInbound(buffer("abc"))
        channel.embeddedEventLoop.advanceTime(by: .hours(10))
        #expect(caughtTransportError(channel) == nil)
        try channel.writeInbound(buffer("\n"))
        #expect(try inboundLines(channel) == ["abc"])
        #expect(framer.bufferedBytes == 0)
    }

    @Test("closing drops a partial line and its deadline")
    func closeDropsPartial() throws {
        let (channel, framer) = try makeChannel()
        try channel.writeInbound(buffer("half a li"))
        #expect(framer.bufferedBytes == 9)
        _ = try channel.finish(acceptAlreadyClosed: true)
        #expect(framer.bufferedBytes == 0)
    }
}
