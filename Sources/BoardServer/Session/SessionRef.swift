import BoardCore
import BoardWire

/// What a board actor knows of a session: who it is and where its bytes go.
public struct SessionRef: Sendable, Hashable {
    /// The session id given in `welcome`.
    public var id: SessionID
    /// The authenticated user.
    public var user: UserID
    /// The client id used for exactly-once delivery.
    public var clientID: ClientID
    /// Where replies and deltas are written.
    public var outbox: Outbox
    /// The user's account role on the server (`welcome.role`): `owner` for the administrator, `bot` for a bot
    /// account, nil for everyone else.
    public var account: Role?

    /// Makes a reference.
    public init(id: SessionID, user: UserID, clientID: ClientID, outbox: Outbox, account: Role? = nil) {
        self.id = id
        self.user = user
        self.clientID = clientID
        self.outbox = outbox
        self.account = account
    }

    /// Identity is the session id.
    public static func == (lhs: SessionRef, rhs: SessionRef) -> Bool { lhs.id == rhs.id }

    /// Hashes the session id.
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}
