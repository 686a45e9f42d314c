/// What a store shared by several nodes hears on its presence channel (`PresenceBus.watchPresence`).
public enum PresenceBusSignal: Sendable, Equatable {
    /// Listening (again): every message published from now on is heard. Messages published while nobody listened
    /// were not, so the node must ask the others to announce their presence again. `reconnected` is false the first
    /// time.
    case listening(reconnected: Bool)
    /// The listening connection is gone, or could not be made again (the reason, for the log; `attempt` counts the
    /// tries since the last `.listening`, from 1): messages are missed until the next `.listening`.
    case lost(String, attempt: Int)
    /// One message, as published (this node's own included).
    case message(String)
}

/// A store through which the nodes sharing it tell each other who is present on which board (PostgreSQL's
/// `NOTIFY`): ephemeral, never stored.
public protocol PresenceBus: Sendable {
    /// The most bytes one published message may have.
    var presencePayloadMax: Int { get }

    /// Publishes one message to every node listening (this one included). Messages one caller publishes one after
    /// the other are heard in that order. `.io` when the database cannot be reached; the message is then lost.
    func publishPresence(_ payload: String) async throws(StoreError)

    /// Listens for presence messages and hands each to `signal`, in order, until the task is cancelled. A lost
    /// connection is reported (`.lost`), re-established every `retryDelay` until it works, and then reported
    /// (`.listening(reconnected: true)`).
    func watchPresence(retryDelay: Duration, _ signal: @escaping @Sendable (PresenceBusSignal) async -> Void) async
}
