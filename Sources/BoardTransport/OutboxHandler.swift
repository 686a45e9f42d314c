import NIOCore

/// Bounds what one connection may have queued for its peer, in bytes and in time.
///
/// It counts the bytes of every write that has not reached the socket yet (each write's promise completes when
/// it has, through a promise cascade) and closes a connection whose peer does not keep up:
/// - more than the cap queued (`preauthOutboxBytes` before ``FramingCommand/authenticated``, `outboxBytes`
///   after), or
/// - bytes queued and no write completed for `writeTimeout`.
///
/// Writes marked as bulk with ``OutboxCommand`` (catch-up and snapshots) are timed but not capped.
///
/// Then it writes the final line given at construction past the cap (it is one short line), flushes, and fires
/// ``TransportError/Code/slowConsumer`` inbound through `fireErrorCaught`. Later writes fail with the same error.
/// The channel is closed once the final line's write has completed — writes complete in order, so the peer has then
/// been sent everything queued before it and the line is the last thing it reads — or `finalLineGrace` after the
/// cut if the peer never reads it. A close asked for meanwhile (the session ending on the error) is held until
/// then: closing at once would discard the queued bytes and the line with them. Nothing waits
/// on the event loop: a slow peer costs at most the cap and one line in memory, for at most `finalLineGrace`.
///
/// ## Writing from other threads
/// Write from any thread with `channel.writeAndFlush(buffer)`, or with `channel.write` then `channel.flush()`.
/// A fan-out that sends many deltas to one connection should hop once and flush once, so the deltas share one TLS
/// record and one syscall:
/// ```swift
/// channel.eventLoop.execute {
///     for delta in deltas { channel.write(delta, promise: nil) }
///     channel.flush()
/// }
/// ```
/// The same encoded `ByteBuffer` can be written to every subscriber; buffers are copy-on-write.
///
/// Read ``pendingBytes`` on the event loop, or from anywhere with ``pendingBytes(on:)``, for metrics.
public final class OutboxHandler: ChannelOutboundHandler, RemovableChannelHandler {
    /// Bytes to send.
    public typealias OutboundIn = ByteBuffer
    /// Bytes to send, unchanged.
    public typealias OutboundOut = ByteBuffer

    /// Bytes written through this handler whose writes have not completed yet (bulk writes excluded).
    public private(set) var pendingBytes = 0
    /// Bulk bytes (see ``OutboxCommand``) whose writes have not completed yet: timed, never capped.
    public private(set) var bulkBytes = 0
    private var inBulk = false
    /// The cap in force right now.
    public private(set) var outboxBytes: Int
    private let authenticatedOutboxBytes: Int
    private let writeTimeout: TimeAmount
    private let finalLine: ByteBuffer?

    /// When the queue last made progress: the last completed write, or when it became non-empty.
    private var lastProgress: NIODeadline?
    /// The write deadline's timer, on the event loop's shared schedule (``LoopTimers``): every connection that writes
    /// arms it, so as NIO timers 5,000 connections would leave NIO's timer array at their peak size for good.
    private var deadlineCheck: LoopTimer?
    private var tripped = false
    /// How long after the cut the final line may take to reach the socket before the channel is closed anyway.
    private let finalLineGrace: TimeAmount
    /// Set from the cut until the final line's write completed or `finalLineGrace` passed: closes wait.
    private var finalLinePending = false
    private var graceCheck: Scheduled<Void>?
    /// The promise of a close asked for while the final line was pending, completed by the real close.
    private var heldClose: EventLoopPromise<Void>?

    /// Makes an outbox that enforces the outbox caps and write deadline of `limits`.
    ///
    /// `finalLine` is the line written before closing a slow consumer (a `\n` is appended if it lacks one), e.g.
    /// `{"type":"error","code":"slow_consumer",…,"close":true}`; `nil` closes without a line.
    public convenience init(limits: TransportLimits, finalLine: ByteBuffer?) {
        self.init(
            preauthOutboxBytes: limits.preauthOutboxBytes, outboxBytes: limits.outboxBytes,
            writeTimeout: limits.writeTimeout, finalLine: finalLine)
    }

    /// Makes an outbox with the given caps (bytes), write deadline and final line; the close waits at most
    /// `finalLineGrace` (default: `writeTimeout`) for the final line to reach the socket.
    public init(
        preauthOutboxBytes: Int, outboxBytes: Int, writeTimeout: TimeAmount, finalLine: ByteBuffer?,
        finalLineGrace: TimeAmount? = nil
    ) {
        self.outboxBytes = preauthOutboxBytes
        self.authenticatedOutboxBytes = outboxBytes
        self.writeTimeout = writeTimeout
        self.finalLineGrace = finalLineGrace ?? writeTimeout
        if var line = finalLine, line.readableBytes > 0,
            line.getInteger(at: line.writerIndex - 1, as: UInt8.self) != UInt8(ascii: "\n")
        {
            line.writeInteger(UInt8(ascii: "\n"))
            self.finalLine = line
        } else {
            self.finalLine = finalLine
        }
    }

    /// The queued byte count of the `OutboxHandler` in `channel`'s pipeline, read on its event loop.
    public static func pendingBytes(on channel: any Channel) -> EventLoopFuture<Int> {
        channel.eventLoop.submit {
            try channel.pipeline.syncOperations.handler(type: OutboxHandler.self).pendingBytes
        }
    }

    /// Counts the write, or closes the connection when it would pass the cap.
    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard !tripped else {
            promise?.fail(TransportError.slowConsumer("the connection is closing as a slow consumer"))
            return
        }
        let count = unwrapOutboundIn(data).readableBytes
        let bulk = inBulk
        guard bulk || pendingBytes + count <= outboxBytes else {
            promise?.fail(TransportError.slowConsumer("the outbox passed \(outboxBytes) bytes"))
            return closeSlowConsumer(
                context: context,
                .slowConsumer("the peer did not read: more than \(outboxBytes) bytes were queued for it"))
        }
        if pendingBytes + bulkBytes == 0 { lastProgress = context.eventLoop.now }
        if bulk { bulkBytes += count } else { pendingBytes += count }

        let counted = context.eventLoop.makePromise(of: Void.self)
        counted.futureResult.assumeIsolated().whenComplete { _ in
            if bulk { self.bulkBytes -= count } else { self.pendingBytes -= count }
            self.lastProgress = context.eventLoop.now
        }
        if let promise { counted.futureResult.cascade(to: promise) }
        context.write(data, promise: counted)
        armDeadline(context: context)
    }

    /// Raises the cap on ``FramingCommand/authenticated``; passes every event on.
    public func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        if let command = event as? FramingCommand {
            switch command {
            case .authenticated: outboxBytes = max(outboxBytes, authenticatedOutboxBytes)
            case .endInput: break  // ``LineFramer``'s
            }
        } else if let command = event as? OutboxCommand {
            inBulk = command == .beginBulk
            promise?.succeed()
            return
        }
        context.triggerUserOutboundEvent(event, promise: promise)
    }

    /// Holds a close while the final line of a cut slow consumer is on its way (see the type's documentation).
    public func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        // Any mode: even a half close could end the stream before the line (the real close is a full one).
        guard finalLinePending else { return context.close(mode: mode, promise: promise) }
        guard let promise else { return }
        if let heldClose { heldClose.futureResult.cascade(to: promise) } else { heldClose = promise }
    }

    /// Stops the deadline and the grace period when the handler leaves the pipeline.
    public func handlerRemoved(context: ChannelHandlerContext) {
        deadlineCheck?.cancel()
        deadlineCheck = nil
        graceCheck?.cancel()
        graceCheck = nil
    }

    // MARK: Internals

    private func armDeadline(context: ChannelHandlerContext) {
        guard deadlineCheck?.isArmed != true, !tripped, pendingBytes + bulkBytes > 0, let lastProgress else { return }
        let timer = deadlineCheck ?? LoopTimer(on: context.eventLoop) { [self] in checkDeadline(context: context) }
        deadlineCheck = timer
        timer.arm(at: lastProgress + writeTimeout)
    }

    private func checkDeadline(context: ChannelHandlerContext) {
        guard !tripped, pendingBytes + bulkBytes > 0, let lastProgress else { return }
        if context.eventLoop.now >= lastProgress + writeTimeout {
            let ms = writeTimeout.nanoseconds / 1_000_000
            closeSlowConsumer(
                context: context,
                .slowConsumer("the peer did not read: \(pendingBytes + bulkBytes) bytes waited more than \(ms) ms"))
        } else {
            armDeadline(context: context)
        }
    }

    private func closeSlowConsumer(context: ChannelHandlerContext, _ error: TransportError) {
        tripped = true
        deadlineCheck?.cancel()
        deadlineCheck = nil
        guard let finalLine else {
            context.flush()
            context.fireErrorCaught(error)
            return context.close(promise: nil)
        }
        finalLinePending = true
        graceCheck = context.eventLoop.assumeIsolated().scheduleTask(in: finalLineGrace) {
            self.finishClose(context: context)
        }
        let written = context.eventLoop.makePromise(of: Void.self)
        written.futureResult.assumeIsolated().whenComplete { _ in self.finishClose(context: context) }
        context.write(wrapOutboundOut(finalLine), promise: written)
        context.flush()
        context.fireErrorCaught(error)
    }

    /// The final line reached the socket (or failed, or the grace period ended): close now, once.
    private func finishClose(context: ChannelHandlerContext) {
        guard finalLinePending else { return }
        finalLinePending = false
        graceCheck?.cancel()
        graceCheck = nil
        let promise = heldClose
        heldClose = nil
        context.close(promise: promise)
    }
}

@available(*, unavailable)
extension OutboxHandler: Sendable {}
