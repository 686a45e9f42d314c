import BoardTransport
import NIOCore
import NIOWebSocket

/// Turns a WebSocket into a line channel: each text message in is one line (without its `\n`), and each line written
/// out (a buffer may hold several, each ending in `\n`) goes out as one text message. The handlers after it see the
/// same thing as after ``BoardTransport/LineFramer``, so a WebSocket is served by the same session code as a TLS
/// connection.
///
/// It answers pings, answers a close with a close and then closes, and refuses binary messages (1003). Messages are
/// bounded like lines: `preauthLineMax` until ``BoardTransport/FramingCommand/authenticated``, `lineMax` after (a
/// longer one is ``BoardTransport/TransportError/Code/lineTooLong``, as on TLS). ``BoardTransport/FramingCommand/endInput``
/// drops what the peer sends from then on and ends the inbound stream. A close of the channel sends a close frame
/// (1000) first, so that a browser sees a clean close; an error the session answers (`line_too_long`, …) has gone
/// out as a text message before it.
final class WebSocketLines: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = WebSocketFrame

    private var lineMax: Int
    private let authenticatedLineMax: Int
    private var dropping = false
    private var sentClose = false
    /// The last frame write's future: an empty write (a "flush and tell me" marker) completes after it.
    private var lastWrite: EventLoopFuture<Void>?

    init(preauthLineMax: Int, lineMax: Int) {
        self.lineMax = preauthLineMax
        self.authenticatedLineMax = lineMax
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            guard !dropping else { return }
            var line = frame.unmaskedData
            guard line.readableBytes <= lineMax else {
                context.fireErrorCaught(TransportError.lineTooLong(limit: lineMax))
                return
            }
            // One line per message; a trailing newline (a client that sends lines as it would over TLS) is not part of it.
            if line.readableBytes > 0, line.getInteger(at: line.writerIndex - 1, as: UInt8.self) == UInt8(ascii: "\n") {
                line.moveWriterIndex(to: line.writerIndex - 1)
                if line.readableBytes > 0, line.getInteger(at: line.writerIndex - 1, as: UInt8.self) == UInt8(ascii: "\r") {
                    line.moveWriterIndex(to: line.writerIndex - 1)
                }
            }
            context.fireChannelRead(wrapInboundOut(line))
        case .binary:
            sendClose(context: context, code: .unacceptableData)
            context.close(promise: nil)
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose:
            // The peer is done: answer with a close (the same code), then close the connection.
            if !sentClose {
                sentClose = true
                var data = frame.unmaskedData
                let code = data.readableBytes >= 2 ? data.readSlice(length: 2) : nil
                let reply = WebSocketFrame(fin: true, opcode: .connectionClose, data: code ?? ByteBuffer())
                context.writeAndFlush(wrapOutboundOut(reply)).whenComplete { _ in context.close(promise: nil) }
            } else {
                context.close(promise: nil)
            }
        default:
            break
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        var buffer = unwrapOutboundIn(data)
        guard !sentClose else {
            promise?.fail(ChannelError.outputClosed)
            return
        }
        var frames: [ByteBuffer] = []
        while buffer.readableBytes > 0 {
            let view = buffer.readableBytesView
            if let newline = view.firstIndex(of: UInt8(ascii: "\n")) {
                let length = newline - view.startIndex
                if length > 0, let slice = buffer.readSlice(length: length) { frames.append(slice) }
                buffer.moveReaderIndex(forwardBy: 1)
            } else {
                frames.append(buffer)
                break
            }
        }
        guard let last = frames.popLast() else {
            // Nothing to send: complete when everything written before has been.
            if let promise {
                if let lastWrite { lastWrite.cascade(to: promise) } else { promise.succeed() }
            }
            return
        }
        for frame in frames {
            context.write(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: frame)), promise: nil)
        }
        let written = promise ?? context.eventLoop.makePromise()
        context.write(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: last)), promise: written)
        lastWrite = written.futureResult
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        if let command = event as? FramingCommand {
            switch command {
            case .authenticated:
                lineMax = authenticatedLineMax
            case .endInput:
                if !dropping {
                    dropping = true
                    context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
                }
            }
            promise?.succeed()
            return
        }
        context.triggerUserOutboundEvent(event, promise: promise)
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if !sentClose, context.channel.isActive {
            sendClose(context: context, code: .normalClosure)
        }
        context.close(mode: mode, promise: promise)
    }

    /// The frame decoder's and the aggregator's errors (automatic error handling is off, so they arrive here): a
    /// message over the line cap is ``BoardTransport/TransportError/Code/lineTooLong`` as on TLS, so the session
    /// sends its `error` line before the close; any other breach of RFC 6455 closes with 1002.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch error {
        case NIOWebSocketError.invalidFrameLength, NIOWebSocketFrameAggregator.Error.accumulatedFrameSizeIsTooLarge,
            NIOWebSocketFrameAggregator.Error.tooManyFragments:
            dropping = true
            context.fireErrorCaught(TransportError.lineTooLong(limit: authenticatedLineMax))
        case is NIOWebSocketError, is NIOWebSocketFrameAggregator.Error:
            dropping = true
            sendClose(context: context, code: .protocolError)
            context.close(promise: nil)
        default:
            context.fireErrorCaught(error)
        }
    }

    private func sendClose(context: ChannelHandlerContext, code: WebSocketErrorCode) {
        guard !sentClose else { return }
        sentClose = true
        var data = context.channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: code)
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: data)), promise: nil)
    }
}

/// Keeps a quiet page's WebSocket honest: a WebSocket ping every `interval` (browsers answer on their own, with no
/// script involved) and a close when nothing at all arrived for two intervals, so a tab whose machine vanished
/// without closing its connection does not keep its web session for ever. Sits before ``WebSocketLines``.
final class WebSocketKeepAlive: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    let interval: TimeAmount
    private var heardSince = true
    private var timer: RepeatedTask?

    init(interval: TimeAmount) { self.interval = interval }

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { [weak self] _ in
            guard let self else { return }
            let context = loopBound.value
            if !self.heardSince, self.missed {
                context.close(promise: nil)
                return
            }
            self.missed = !self.heardSince
            self.heardSince = false
            let ping = WebSocketFrame(fin: true, opcode: .ping, data: context.channel.allocator.buffer(capacity: 0))
            context.writeAndFlush(NIOAny(ping), promise: nil)
        }
    }

    /// Set when a whole interval passed without a frame: the next silent interval closes.
    private var missed = false

    func handlerRemoved(context: ChannelHandlerContext) { timer?.cancel() }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        heardSince = true
        missed = false
        context.fireChannelRead(data)
    }
}
