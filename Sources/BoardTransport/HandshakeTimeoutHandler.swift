import NIOCore
import NIOTLS

/// Closes a connection whose TLS handshake has not finished within a time limit.
///
/// Place it right after the `NIOSSLHandler`, which fires `TLSUserEvent.handshakeCompleted` towards the tail. The
/// clock starts when the channel becomes active (or when the handler is added to an active channel). On timeout it
/// fires ``TransportError/Code/handshakeTimeout`` inbound and closes the channel; once the handshake completes it
/// removes itself from the pipeline. It counts nothing else.
///
/// The optional `completion` promise reports the handshake's outcome: it succeeds on `handshakeCompleted` and fails
/// with the first error seen before it (a failed verification, the timeout, or the channel closing). The client
/// waits on it so that `connect` fails with the reason instead of returning a dead channel.
public final class HandshakeTimeoutHandler: ChannelInboundHandler, RemovableChannelHandler {
    /// Bytes, passed through.
    public typealias InboundIn = ByteBuffer
    /// Bytes, passed through.
    public typealias InboundOut = ByteBuffer

    private let timeout: TimeAmount
    private var completion: EventLoopPromise<Void>?
    private var timer: LoopTimer?
    private var firstError: (any Error)?
    private var done = false

    /// Makes a handler that allows `timeout` for the handshake and reports the outcome to `completion`.
    public init(timeout: TimeAmount, completion: EventLoopPromise<Void>? = nil) {
        self.timeout = timeout
        self.completion = completion
    }

    /// Starts the clock if the channel is already active.
    public func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { startClock(context: context) }
    }

    /// Starts the clock.
    public func channelActive(context: ChannelHandlerContext) {
        startClock(context: context)
        context.fireChannelActive()
    }

    /// Stops the clock on `handshakeCompleted`, then steps out of the pipeline.
    public func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if !done, let tls = event as? TLSUserEvent, case .handshakeCompleted = tls {
            finish(.success(()))
            context.fireUserInboundEventTriggered(event)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// Remembers the first error before the handshake completed (the reason it failed).
    public func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !done, firstError == nil { firstError = error }
        context.fireErrorCaught(error)
    }

    /// Fails the completion when the channel closes before the handshake completed.
    public func channelInactive(context: ChannelHandlerContext) {
        finish(.failure(firstError ?? ChannelError.eof))
        context.fireChannelInactive()
    }

    /// Stops the clock when the handler leaves the pipeline.
    public func handlerRemoved(context: ChannelHandlerContext) {
        finish(.failure(firstError ?? ChannelError.eof))
    }

    private func startClock(context: ChannelHandlerContext) {
        guard !done, timer == nil else { return }
        // On the loop's shared schedule (LoopTimers), not a NIO timer per connection.
        let timer = LoopTimer(on: context.eventLoop) { [self] in
            self.timer = nil
            guard !done else { return }
            let error = TransportError.handshakeTimeout(milliseconds: timeout.nanoseconds / 1_000_000)
            finish(.failure(error))
            context.fireErrorCaught(error)
            context.close(promise: nil)
        }
        self.timer = timer
        timer.arm(at: context.eventLoop.now + timeout)
    }

    private func finish(_ result: Result<Void, any Error>) {
        guard !done else { return }
        done = true
        timer?.cancel()
        timer = nil
        let completion = self.completion
        self.completion = nil
        completion?.completeWith(result)
    }
}

@available(*, unavailable)
extension HandshakeTimeoutHandler: Sendable {}
