import NIOCore

/// Keeps a connection honest: writes a `ping` line every interval and closes the connection once no line has
/// arrived for exactly two intervals (Protocol.md, "Connection lifecycle": any line counts as a sign of life).
///
/// The silence is measured from the last line read, or from when the connection became active if none was: a
/// deadline at `last line + 2 × interval` is armed and, when it fires with nothing read since, the connection is
/// closed; otherwise it is re-armed from the newer line. Time is the event loop's (`eventLoop.now`), so tests drive it
/// with an `EmbeddedEventLoop`. It finds a black-holed peer (no FIN, no RST) within two intervals, which TCP alone
/// would not for minutes. It sits between the framer and the outbox, so its pings are counted against the outbox
/// like any other line.
public final class HeartbeatHandler: ChannelDuplexHandler, RemovableChannelHandler {
    public typealias InboundIn = ByteBuffer
    public typealias InboundOut = ByteBuffer
    public typealias OutboundIn = ByteBuffer
    public typealias OutboundOut = ByteBuffer

    private let interval: TimeAmount
    private let pingLine: ByteBuffer
    private var lastRead: NIODeadline = .uptimeNanoseconds(0)
    private var pings: RepeatedTask?
    private var deadline: Scheduled<Void>?

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
        guard pings == nil else { return }
        lastRead = context.eventLoop.now
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        pings = context.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
            let (handler, context) = loopBound.value
            context.writeAndFlush(NIOAny(handler.pingLine), promise: nil)
        }
        arm(context, at: lastRead + interval * 2)
    }

    /// Schedules the silence check for `when`.
    private func arm(_ context: ChannelHandlerContext, at when: NIODeadline) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(deadline: when) {
            let (handler, context) = loopBound.value
            handler.checkSilence(context)
        }
    }

    private func checkSilence(_ context: ChannelHandlerContext) {
        guard pings != nil else { return }
        let due = lastRead + interval * 2
        if context.eventLoop.now >= due {
            stop()
            context.close(promise: nil)
        } else {
            arm(context, at: due)
        }
    }

    private func stop() {
        pings?.cancel()
        pings = nil
        deadline?.cancel()
        deadline = nil
    }
}
