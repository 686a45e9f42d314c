import NIOCore
import Synchronization

/// Connections that arrive through another door than the TLS listener (a WebSocket on the web listener, a web
/// page's session inside this process), handed to the server to serve like its own: the same `hello`, limits,
/// errors and exactly-once, one `Session` each.
///
/// A connection is a line channel like the listener's: inbound one line per buffer without its `\n`, outbound
/// bytes of whole lines. Its pipeline must bound lines and the outbox (``BoardTransport/OutboxHandler``) as the
/// listener's does. The server serves what arrives from its start until it stops; a connection handed over after
/// that is closed at once.
public final class AcceptedConnections: Sendable {
    /// One connection and the address its peer is counted under (the pre-auth cap per IP address). One that is
    /// never taken (the server stopped reading this door with it still queued, as a web page's session reconnecting
    /// during shutdown can be) closes its connection when it goes: an `NIOAsyncChannel` dropped unfinished traps.
    final class Arrival: Sendable {
        private let connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        let address: String
        private let taken = Atomic<Bool>(false)

        init(connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>, address: String) {
            self.connection = connection
            self.address = address
        }

        /// The connection, for the one that serves it.
        func take() -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
            taken.store(true, ordering: .relaxed)
            return connection
        }

        deinit {
            guard !taken.load(ordering: .relaxed) else { return }
            let connection = self.connection
            // Immediate: the close starts on this thread before the deinit returns (the body does not suspend), so
            // it does not wait for a free thread of the cooperative pool, which a busy process may not have for
            // seconds. Only the wait for the close to complete runs later.
            Task.immediate { try? await connection.executeThenClose { _, _ in } }
        }
    }

    let arrivals: AsyncStream<Arrival>
    private let sink: AsyncStream<Arrival>.Continuation

    /// Makes an empty door; give it to ``BoardServer/init(configuration:store:features:tls:accepted:clock:logger:group:onListening:)``.
    public init() {
        (arrivals, sink) = AsyncStream.makeStream(of: Arrival.self)
    }

    /// Hands a connection to the server. `address` is the peer's IP address (a web page's, for its session inside
    /// this process). Returns false, having closed the connection, when the server has stopped serving.
    @discardableResult
    public func serve(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>, address: String) -> Bool {
        switch sink.yield(Arrival(connection: connection, address: address)) {
        case .enqueued: return true
        case .dropped, .terminated: break
        @unknown default: break
        }
        // The arrival, not taken, closes the connection as it goes.
        return false
    }

    /// No more connections: the server is stopping.
    func finish() { sink.finish() }
}
