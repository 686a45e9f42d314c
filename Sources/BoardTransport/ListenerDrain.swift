import NIOCore
import Synchronization

/// Closes a listener without dropping a connection it has accepted but not yet handed to its accept loop.
///
/// A listener bound with an `NIOAsyncChannel` per connection drops, when it closes, the connections NIO has
/// accepted but not yet yielded to the accept loop: the child initializer runs on the connection's own loop, its
/// result hops back to the listener's loop, and only then is it queued for the accept loop. A dropped
/// `NIOAsyncChannel` traps ("Deinited NIOAsyncWriter without calling finish()", apple/swift-nio#2813), so a health
/// check or a client arriving as corkd stopped could take the process down.
///
/// So the listener's own pipeline counts every connection as it is accepted (``watchListener(_:)``, in the server
/// channel initializer: that runs on the listener's loop in the same turn as the accept), and each connection is
/// counted again when the accept loop takes it (``taken()``) or its set-up fails (``failed()``).
/// ``close(_:limit:)`` stops accepting (after which the accepted count is final), waits until every accepted
/// connection is accounted for (bounded), then closes.
public final class ListenerDrain: Sendable {
    private let counts = Mutex<(accepted: Int, settled: Int)>((0, 0))

    public init() {}

    /// Counts the connections `listener` accepts; call it in the server channel initializer.
    public func watchListener(_ listener: any Channel) -> EventLoopFuture<Void> {
        listener.eventLoop.makeCompletedFuture {
            try listener.pipeline.syncOperations.addHandler(AcceptCounter(drain: self))
        }
    }

    fileprivate func accepted() { counts.withLock { $0.accepted += 1 } }

    /// The accept loop took a connection.
    public func taken() { counts.withLock { $0.settled += 1 } }

    /// A connection's set-up failed in the child initializer: it never reaches the accept loop.
    public func failed() { counts.withLock { $0.settled += 1 } }

    /// Stops `listener` accepting, waits until every connection it accepted has been taken or has failed its set-up
    /// (at most `limit`), and closes it.
    public func close(_ listener: any Channel, limit: Duration = .seconds(10)) async {
        // Runs on the listener's loop: every accept before it has been counted, and none comes after it.
        try? await listener.setOption(.autoRead, value: false).get()
        let deadline = ContinuousClock.now + limit
        while counts.withLock({ $0.settled < $0.accepted }), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(2))
        }
        try? await listener.close()
    }
}

/// Counts each connection a listener accepts for a ``ListenerDrain``; sits before NIO's accept handler.
private final class AcceptCounter: ChannelInboundHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel
    let drain: ListenerDrain

    init(drain: ListenerDrain) { self.drain = drain }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        drain.accepted()
        context.fireChannelRead(data)
    }
}
