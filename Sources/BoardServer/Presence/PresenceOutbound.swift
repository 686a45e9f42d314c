import BoardCore
import BoardWire

/// Where a board actor drops its local presence changes for the other nodes (``PresenceRelay`` publishes them).
///
/// Yielding never waits, so presence costs a board no suspension point, and the changes of one board keep their
/// order. The relay moves them at once into its own bounded queue.
public final class PresenceOutbound: Sendable {
    let stream: AsyncStream<PresenceRelayEvent>
    private let continuation: AsyncStream<PresenceRelayEvent>.Continuation

    /// A fresh channel.
    public init() {
        (stream, continuation) = AsyncStream.makeStream(of: PresenceRelayEvent.self)
    }

    /// A session of this node is present on `board` as `entry` (joined or changed).
    func set(_ board: BoardID, _ entry: ServerMessage.PresenceEntry) { continuation.yield(.set(board: board, entry: entry)) }

    /// A session of this node left `board`.
    func left(_ board: BoardID, _ session: SessionID, _ user: UserID) {
        continuation.yield(.left(board: board, session: session, user: user))
    }

    /// Any other event (the relay's own: beats, announcements).
    func send(_ event: PresenceRelayEvent) { continuation.yield(event) }

    /// No more events.
    func finish() { continuation.finish() }
}
