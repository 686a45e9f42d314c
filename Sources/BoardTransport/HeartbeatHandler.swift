import NIOCore

/// Keeps a connection honest: writes a `ping` line every interval and closes the connection when nothing at all
/// has arrived for two intervals (Protocol.md, "Connection lifecycle": any line counts as a sign of life).
///
/// It finds a black-holed peer (no FIN, no RST) within two intervals, which TCP alone would not for minutes. It sits
/// between the framer and the outbox, so its pings are counted against the outbox like any other line.
public final class HeartbeatHandler: ChannelDuplexHandler, RemovableChannelHandler {
    public typealias InboundIn = ByteBuffer
    public typealias InboundOut = ByteBuffer
    public typealias OutboundIn = ByteBuffer
    public typealias OutboundOut = ByteBuffer

    private let interval: TimeAmount
    private let pingLine: ByteBuffer
    private var lastRead: NIODeadline = .now()
    private var task: RepeatedTask?

    /// Pings every `interval` with `pingLine` (e.g. `{"type":"ping"}\n`).
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
        lastRead = .now()
        context.fireChannelRead(data)
    }

    private func start(_ context: ChannelHandlerContext) {
        guard task == nil else { return }
        lastRead = .now()
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        task = context.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
            let (handler, context) = loopBound.value
            handler.tick(context)
        }
    }

    private func tick(_ context: ChannelHandlerContext) {
        if NIODeadline.now() - lastRead >= interval * 2 {
            stop()
            context.close(promise: nil)
            return
        }
        context.writeAndFlush(NIOAny(pingLine), promise: nil)
    }

    private func stop() {
        task?.cancel()
        task = nil
    }
}
