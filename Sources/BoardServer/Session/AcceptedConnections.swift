import NIOCore

/// Connections that arrive through another door than the TLS listener (a WebSocket on the web listener, a web
/// page's session inside this process), handed to the server to serve like its own: the same `hello`, limits,
/// errors and exactly-once, one `Session` each.
///
/// A connection is a line channel like the listener's: inbound one line per buffer without its `\n`, outbound
/// bytes of whole lines. Its pipeline must bound lines and the outbox (``BoardTransport/OutboxHandler``) as the
/// listener's does. The server serves what arrives from its start until it stops; a connection handed over after
/// that is closed at once.
public final class AcceptedConnections: Sendable {
    /// One connection and the address its peer is counted under (the pre-auth cap per IP address).
    struct Arrival: Sendable {
        var connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        var address: String
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
        // Closed through the wrapper: an `NIOAsyncChannel` dropped unfinished traps (a web page's session that
        // reconnects while the server is stopping lands here).
        Task { try? await connection.executeThenClose { _, _ in } }
        return false
    }

    /// No more connections: the server is stopping.
    func finish() { sink.finish() }
}
