import NIOCore

/// Keeps a connection honest: writes a `ping` line every interval and closes the connection once no line has
/// arrived for exactly two intervals (Protocol.md, "Connection lifecycle": any line counts as a sign of life).
///
/// Pings are due every `interval` counted from when the connection became active; the silence is measured from the
/// last line read, or from when the connection became active if none was, and the connection is closed the moment
/// it reaches `2 × interval`. The handler holds one ``LoopTimer`` (its event loop's shared schedule, not a NIO timer
/// of its own), armed for its next ping or its silence deadline, whichever is first; a line read only notes the
/// time. Time is the event loop's (`eventLoop.now`), so tests drive it with an `EmbeddedEventLoop`. It finds a
/// black-holed peer (no FIN, no RST) within two intervals, which TCP alone would not for minutes. It sits between the
/// framer and the outbox, so its pings are counted against the outbox like any other line. It handles nothing on the
/// way out, so it is an inbound handler only: every line written to the connection passes it by.
public final class HeartbeatHandler: ChannelInboundHandler, RemovableChannelHandler {
    public typealias InboundIn = ByteBuffer
    public typealias InboundOut = ByteBuffer

    private let interval: TimeAmount
    private let pingLine: ByteBuffer
    private var lastRead: NIODeadline = .uptimeNanoseconds(0)
    private var nextPing: NIODeadline = .uptimeNanoseconds(0)
    private var timer: LoopTimer?

    /// Pings every `interval` with `pingLine` (e.g. `{"type":"ping"}\n`); closes after `2 × interval` of silence.
    public init(interval: TimeAmount, pingLine: ByteBuffer) {
        self.interval = interval
        self.pingLine = pingLine
    }

    public func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    public func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    public func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        stop()
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        lastRead = context.eventLoop.now
        context.fireChannelRead(data)
    }

    private func start(_ context: ChannelHandlerContext) {
        guard timer == nil else { return }
        lastRead = context.eventLoop.now
        nextPing = lastRead + interval
        let timer = LoopTimer(on: context.eventLoop) { [self] in beat(context) }
        self.timer = timer
        timer.arm(at: nextDue)
    }

    /// The next ping or the silence deadline, whichever is first.
    private var nextDue: NIODeadline { min(nextPing, lastRead + interval * 2) }

    /// The timer came due: pings if a ping is due, closes a silent connection, and arms the timer for the next of the
    /// two. A ping that came due before the silence deadline goes first even when the timer runs after both (a loop
    /// held up for an interval): the peer is told it was pinged, as with one timer each, before it is closed. At the
    /// same instant the close wins, without a last ping.
    private func beat(_ context: ChannelHandlerContext) {
        guard let timer else { return }
        let now = context.eventLoop.now
        let silentAt = lastRead + interval * 2
        if now >= nextPing, nextPing < silentAt {
            while nextPing <= now { nextPing = nextPing + interval }
            context.writeAndFlush(NIOAny(pingLine), promise: nil)
            // The write may have closed the connection (a full outbox), which stopped this handler.
            guard self.timer === timer else { return }
        }
        if now >= silentAt {
            stop()
            context.close(promise: nil)
            return
        }
        timer.arm(at: nextDue)
    }

    private func stop() {
        timer?.cancel()
        timer = nil
    }
}
