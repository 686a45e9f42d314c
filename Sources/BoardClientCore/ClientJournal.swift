import BoardCore
import BoardWire

/// What a client keeps across restarts: its client id, its mutation counter and its unfinished ops.
public struct ClientJournal: Hashable, Sendable, Codable {
    /// The client id the server assigned (nil before the first `welcome`).
    public var clientID: ClientID?
    /// The next mutation id to use.
    public var nextMut: UInt64
    /// Ops sent or queued whose outcome has not arrived, in mutation order.
    public var pending: [PendingOp]

    /// An empty journal.
    public init(clientID: ClientID? = nil, nextMut: UInt64 = 1, pending: [PendingOp] = []) {
        self.clientID = clientID
        self.nextMut = nextMut
        self.pending = pending
    }

    enum CodingKeys: String, CodingKey {
        case clientID = "client_id"
        case nextMut = "next_mut"
        case pending
    }
}
