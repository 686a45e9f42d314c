import NIOCore
import Synchronization

/// Closes a listener without dropping a connection it has accepted but not yet handed to its accept loop.
///
/// A listener bound with an `NIOAsyncChannel` per connection drops, when it closes, the connections NIO has just
/// accepted and set up but not yet yielded to the accept loop; a dropped `NIOAsyncChannel` traps ("Deinited
/// NIOAsyncWriter without calling finish()", apple/swift-nio#2813). A health check arriving as corkd stopped took
/// the process down that way. So each connection is counted as it becomes active (``watch(_:)``, in the child
/// initializer: NIO hands a connection to the accept loop once it is active), the accept loop counts each one it
/// took (``taken()``), and ``close(_:group:limit:)`` stops accepting, lets every connection accepted until then
/// become active on its loop and reach the accept loop (bounded), then closes.
public final class ListenerDrain: Sendable {
    private let counts = Mutex<(setUp: Int, taken: Int)>((0, 0))

    public init() {}

    /// Counts `channel` when it becomes active; call it in the child initializer.
    public func watch(_ channel: any Channel) throws {
        try channel.pipeline.syncOperations.addHandler(ActiveCounter(drain: self), position: .first)
    }

    fileprivate func setUp() { counts.withLock { $0.setUp += 1 } }

    /// The accept loop took a connection.
    public func taken() { counts.withLock { $0.taken += 1 } }

    /// Stops `listener` accepting, waits until every connection it accepted has been taken (at most `limit`), and
    /// closes it. `group` is the group its connections run on.
    public func close(_ listener: any Channel, group: any EventLoopGroup, limit: Duration = .seconds(2)) async {
        try? await listener.setOption(.autoRead, value: false).get()
        // A connection accepted before that is set up by a task on its own loop: one turn of every loop runs it.
        for loop in group.makeIterator() { try? await loop.submit {}.get() }
        let deadline = ContinuousClock.now + limit
        while counts.withLock({ $0.taken < $0.setUp }), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        try? await listener.close()
    }
}

/// Counts its connection for a ``ListenerDrain`` when it becomes active, then leaves the pipeline.
private final class ActiveCounter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    let drain: ListenerDrain

    init(drain: ListenerDrain) { self.drain = drain }

    func channelActive(context: ChannelHandlerContext) {
        drain.setUp()
        context.fireChannelActive()
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
