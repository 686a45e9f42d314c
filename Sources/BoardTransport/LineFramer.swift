#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore

/// Cuts the inbound byte stream into lines, bounded in size and in time.
///
/// Inbound, it turns `ByteBuffer`s into one `ByteBuffer` per line, without the `\n` and without a `\r` right
/// before it; empty lines are dropped. Many lines in one read are all delivered, as slices of the read buffer (no
/// copy); a line split across reads, at any byte, is reassembled in a buffer of its own.
///
/// Bounds:
/// - **Size.** A line may hold at most the current cap, terminator excluded. The cap starts at `preauthLineMax` and
///   becomes `lineMax` when the handler receives the outbound user event ``FramingCommand/authenticated``. The
///   handler never buffers more than the cap (plus one pending `\r`). A longer line fires
///   ``TransportError/Code/lineTooLong`` through `fireErrorCaught`.
/// - **Time.** A line must be complete within `lineTimeout` of its **first** byte; bytes that keep trickling in do
///   not extend it. Past it, ``TransportError/Code/lineTimeout`` is fired.
///
/// After either error the handler drops every further byte and stops asking the channel to read; the session
/// sends its final `error` line and closes. Outbound writes pass through untouched.
public final class LineFramer: ChannelDuplexHandler, RemovableChannelHandler {
    /// Raw bytes from the TLS layer.
    public typealias InboundIn = ByteBuffer
    /// One line, without its terminator.
    public typealias InboundOut = ByteBuffer
    /// Bytes to send, untouched.
    public typealias OutboundIn = ByteBuffer
    /// Bytes to send, untouched.
    public typealias OutboundOut = ByteBuffer

    private static let newline = UInt8(ascii: "\n")
    private static let carriageReturn = UInt8(ascii: "\r")

    /// The longest line accepted right now, terminator excluded.
    public private(set) var lineMax: Int
    private let authenticatedLineMax: Int
    private let lineTimeout: TimeAmount?

    /// The unfinished line (bytes of a line whose `\n` has not arrived yet); `nil` between lines.
    private var partial: ByteBuffer?
    /// When the first byte of `partial` arrived.
    private var partialStartedAt: NIODeadline?
    /// The pending deadline check; at most one at a time.
    private var deadlineCheck: Scheduled<Void>?
    /// Set once a bound was broken; everything after is dropped.
    private var failed = false
    /// Set by ``FramingCommand/endInput``: everything after is dropped, but reading goes on (so TLS sees the peer's
    /// `close_notify` and the close completes without waiting for its timeout).
    private var inputEnded = false

    /// Bytes of an unfinished line held right now (never more than ``lineMax`` + 1).
    public var bufferedBytes: Int { partial?.readableBytes ?? 0 }

    /// Makes a framer that enforces the line caps and the line deadline of `limits`.
    public convenience init(limits: TransportLimits) {
        self.init(
            preauthLineMax: limits.preauthLineMax, lineMax: limits.lineMax, lineTimeout: limits.lineTimeout)
    }

    /// Makes a framer with the given caps (bytes, terminator excluded) and deadline (`nil`: none).
    public init(preauthLineMax: Int, lineMax: Int, lineTimeout: TimeAmount?) {
        precondition(preauthLineMax > 0 && lineMax > 0, "line caps must be positive")
        self.lineMax = preauthLineMax
        self.authenticatedLineMax = lineMax
        self.lineTimeout = lineTimeout
    }

    // MARK: Inbound

    /// Emits every complete line in `data` and keeps the unfinished rest, within the cap.
    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed, !inputEnded else { return }
        var bytes = unwrapInboundIn(data)

        if var line = partial {
            partial = nil
            guard let newline = Self.newlineIndex(in: bytes) else {
                guard Self.contentLength(line.readableBytes + bytes.readableBytes, last: bytes.lastByte ?? line.lastByte)
                    <= lineMax
                else { return fail(context: context, .lineTooLong(limit: lineMax)) }
                line.writeBuffer(&bytes)
                partial = line
                return
            }
            let count = newline - bytes.readerIndex
            let last = count > 0 ? bytes.getInteger(at: newline - 1, as: UInt8.self) : line.lastByte
            guard Self.contentLength(line.readableBytes + count, last: last) <= lineMax else {
                return fail(context: context, .lineTooLong(limit: lineMax))
            }
            var head = bytes.readSlice(length: count)!
            bytes.moveReaderIndex(forwardBy: 1)
            line.writeBuffer(&head)
            partialStartedAt = nil
            emit(line, context: context)
            guard !failed else { return }
        }

        while let newline = Self.newlineIndex(in: bytes) {
            let line = bytes.readSlice(length: newline - bytes.readerIndex)!
            bytes.moveReaderIndex(forwardBy: 1)
            guard Self.contentLength(line.readableBytes, last: line.lastByte) <= lineMax else {
                return fail(context: context, .lineTooLong(limit: lineMax))
            }
            emit(line, context: context)
            guard !failed else { return }
        }

        guard bytes.readableBytes > 0 else { return }
        guard Self.contentLength(bytes.readableBytes, last: bytes.lastByte) <= lineMax else {
            return fail(context: context, .lineTooLong(limit: lineMax))
        }
        // Copy the unfinished tail so the (possibly much larger) read buffer is not kept alive.
        var copy = context.channel.allocator.buffer(capacity: bytes.readableBytes)
        copy.writeBuffer(&bytes)
        partial = copy
        startDeadline(context: context)
    }

    /// The index of the first `\n` in the readable bytes, found with `memchr` (vectorised by libc; the generic
    /// `firstIndex(of:)` on the byte view went byte by byte and was the top of cork-load's profile).
    @inline(__always)
    static func newlineIndex(in buffer: ByteBuffer) -> Int? {
        buffer.withUnsafeReadableBytes { raw -> Int? in
            guard let base = raw.baseAddress, raw.count > 0, let hit = memchr(base, Int32(newline), raw.count) else {
                return nil
            }
            return buffer.readerIndex + (UnsafeRawPointer(hit) - base)
        }
    }

    /// Drops an unfinished line when the connection ends, and stops the deadline.
    ///
    /// (`ChannelEvent.inputClosed` from below, a peer's half-close, passes on as is.)
    public func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    /// Stops the deadline when the handler leaves the pipeline.
    public func handlerRemoved(context: ChannelHandlerContext) {
        stop()
    }

    // MARK: Outbound

    /// Swallows read requests once a bound was broken, so a hostile peer cannot make the server read on.
    public func read(context: ChannelHandlerContext) {
        guard !failed else { return }
        context.read()
    }

    /// Raises the cap on ``FramingCommand/authenticated``, ends the input on ``FramingCommand/endInput`` (and
    /// completes the promise); passes anything else on.
    public func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        if let command = event as? FramingCommand {
            switch command {
            case .authenticated: lineMax = max(lineMax, authenticatedLineMax)
            case .endInput:
                guard !inputEnded else { break }
                inputEnded = true
                stop()
                context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
            }
            promise?.succeed(())
            return
        }
        context.triggerUserOutboundEvent(event, promise: promise)
    }

    // MARK: Internals

    /// The length of a line's content: `\r` at its end may be half of a `\r\n` terminator and is not counted.
    private static func contentLength(_ count: Int, last: UInt8?) -> Int {
        last == carriageReturn ? count - 1 : count
    }

    private func emit(_ line: ByteBuffer, context: ChannelHandlerContext) {
        var line = line
        if line.lastByte == Self.carriageReturn { line.moveWriterIndex(to: line.writerIndex - 1) }
        guard line.readableBytes > 0 else { return }
        context.fireChannelRead(wrapInboundOut(line))
    }

    private func fail(context: ChannelHandlerContext, _ error: TransportError) {
        failed = true
        stop()
        context.fireErrorCaught(error)
    }

    private func stop() {
        partial = nil
        partialStartedAt = nil
        deadlineCheck?.cancel()
        deadlineCheck = nil
    }

    /// Notes the first byte of a new unfinished line and makes sure a check is scheduled.
    ///
    /// One scheduled check serves many lines: when it fires it either fails the current line or re-arms itself
    /// for the current line's deadline, so a stream of split lines costs no schedule/cancel churn.
    private func startDeadline(context: ChannelHandlerContext) {
        guard let lineTimeout else { return }
        let now = context.eventLoop.now
        partialStartedAt = now
        if deadlineCheck == nil { scheduleCheck(at: now + lineTimeout, context: context) }
    }

    private func scheduleCheck(at deadline: NIODeadline, context: ChannelHandlerContext) {
        deadlineCheck = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) {
            self.checkDeadline(context: context)
        }
    }

    private func checkDeadline(context: ChannelHandlerContext) {
        deadlineCheck = nil
        guard !failed, let lineTimeout, let started = partialStartedAt else { return }
        let deadline = started + lineTimeout
        if context.eventLoop.now >= deadline {
            fail(context: context, .lineTimeout(milliseconds: lineTimeout.nanoseconds / 1_000_000))
        } else {
            scheduleCheck(at: deadline, context: context)
        }
    }
}

extension ByteBuffer {
    /// The last readable byte, if any.
    fileprivate var lastByte: UInt8? {
        readableBytes > 0 ? getInteger(at: writerIndex - 1, as: UInt8.self) : nil
    }
}

@available(*, unavailable)
extension LineFramer: Sendable {}
