import BoardTransport
import NIOCore

/// The one way bytes leave a session: writes on the connection's event loop, several lines per flush.
///
/// The board actor and the session both write through it, so a reply (`ack`) written before a delta reaches the
/// client before it. Nothing here waits for the peer: the transport's `OutboxHandler` bounds what is pending and
/// closes a slow consumer with `slow_consumer`, so one slow reader never slows the fan-out (STYLE.md 5).
public struct Outbox: Sendable, Hashable {
    /// The connection.
    public let channel: any Channel

    /// Wraps a connection.
    public init(channel: any Channel) { self.channel = channel }

    /// Writes the lines in order with one flush (one TLS record and one syscall when they fit).
    ///
    /// Every write of an outbox is queued on the connection's loop, even from that loop: whatever was queued there
    /// before (a board's fan-out, an earlier answer) is written first, so an answer never overtakes the lines that
    /// precede it.
    public func send(_ lines: [ByteBuffer]) {
        guard !lines.isEmpty else { return }
        let channel = self.channel
        channel.eventLoop.execute {
            for line in lines { channel.write(line, promise: nil) }
            channel.flush()
        }
    }

    /// Writes catch-up lines (missed deltas, a snapshot) as bulk: timed by the write deadline but not counted
    /// against the outbox cap, which bounds live fan-out. Then flushes.
    public func sendBulk(_ lines: [ByteBuffer]) {
        guard !lines.isEmpty else { return }
        let channel = self.channel
        channel.eventLoop.execute {
            channel.triggerUserOutboundEvent(OutboxCommand.beginBulk, promise: nil)
            for line in lines { channel.write(line, promise: nil) }
            channel.triggerUserOutboundEvent(OutboxCommand.endBulk, promise: nil)
            channel.flush()
        }
    }

    /// Writes one line and flushes.
    public func send(_ line: ByteBuffer) { send([line]) }

    /// Writes a final line, then closes the connection once it is written. From then on nothing more the peer sends
    /// is read, and the session's inbound stream ends (``FramingCommand/endInput``): the session leaves its boards
    /// at once, not when the TLS close has finished (up to 5 s for a peer that does not answer `close_notify`).
    public func sendAndClose(_ line: ByteBuffer) {
        let channel = self.channel
        channel.eventLoop.execute {
            channel.writeAndFlush(line).whenComplete { _ in
                channel.triggerUserOutboundEvent(FramingCommand.endInput, promise: nil)
                channel.close(promise: nil)
            }
        }
    }

    /// Writes a final line after everything written before, returns once it has reached the socket (or the write
    /// failed: the outbox's write deadline bounds the wait), and starts closing the connection (`closeAfterLinger`).
    public func sendFinal(_ line: ByteBuffer) async {
        await sendAndWait(line)
        closeAfterLinger()
    }

    /// Returns once everything written before has reached the socket (writes complete in order), or the write
    /// failed, then starts closing the connection (`closeAfterLinger`). For the session's own end (`bye`).
    public func closeWhenWritten() async {
        await sendAndWait(ByteBuffer())
        closeAfterLinger()
    }

    /// How long a closing connection waits for the peer to close after its output was shut.
    public static let linger: TimeAmount = .seconds(2)

    /// Closes the connection's output now (TLS `close_notify`, then FIN) and the connection for good when the peer
    /// closes its side or ``linger`` later, whichever comes first; the session drops what the peer still sends
    /// meanwhile. Closing at once while the peer's lines are still arriving would reset the connection, and a reset
    /// lets the peer's system throw away the last lines before the peer has read them (a flooder would never see
    /// why it was closed).
    public func closeAfterLinger() {
        let channel = self.channel
        channel.eventLoop.execute {
            channel.close(mode: .output, promise: nil)
            channel.eventLoop.scheduleTask(in: Self.linger) { channel.close(promise: nil) }
        }
    }

    /// Writes `line` behind everything queued on the loop, and returns once it has reached the socket (or failed).
    func sendAndWait(_ line: ByteBuffer) async {
        let channel = self.channel
        let promise = channel.eventLoop.makePromise(of: Void.self)
        channel.eventLoop.execute { channel.writeAndFlush(line, promise: promise) }
        try? await promise.futureResult.get()
    }

    /// Closes the connection once everything written before has reached the socket (writes complete in order).
    public func close() {
        let channel = self.channel
        channel.eventLoop.execute {
            channel.writeAndFlush(ByteBuffer()).whenComplete { _ in channel.close(promise: nil) }
        }
    }

    /// Compares by connection identity.
    public static func == (lhs: Outbox, rhs: Outbox) -> Bool { ObjectIdentifier(lhs.channel) == ObjectIdentifier(rhs.channel) }

    /// Hashes the connection identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(channel)) }
}
