import BoardCore

extension ServerMessage {
    /// `welcome`: the session is authenticated; the server's limits and heartbeat follow.
    public struct Welcome: Hashable, Sendable, Codable {
        /// The `hello`'s request id.
        public var req: RequestID?
        /// The protocol version in use for this connection.
        public var version: Int
        /// This connection's session id (presence is per session).
        public var session: SessionID
        /// The authenticated user.
        public var user: UserID
        /// `bot` for a bot account, `owner` for a server administrator; absent for other users, whose roles
        /// are per board (see `boards`).
        public var role: Role?
        /// The client id in use: the `hello`'s, or one the server assigned.
        public var clientID: ClientID
        /// The server software's name and version, e.g. `corkd/0.1.0`.
        public var server: String
        /// The limits in force for this session.
        public var limits: WireLimits
        /// The interval of the server's `ping`.
        public var heartbeatMs: Int
        /// The optional features this server speaks on this connection (`hooks`: the `hook.*` messages); absent
        /// when none. A client sends a feature's messages only when it is listed here.
        public var features: [String]?

        /// Makes a welcome.
        public init(
            req: RequestID? = nil, version: Int = ProtocolVersion.current, session: SessionID, user: UserID,
            role: Role? = nil, clientID: ClientID, server: String, limits: WireLimits = .defaults,
            heartbeatMs: Int? = nil, features: [String]? = nil
        ) {
            self.req = req
            self.version = version
            self.session = session
            self.user = user
            self.role = role
            self.clientID = clientID
            self.server = server
            self.limits = limits
            self.heartbeatMs = heartbeatMs ?? limits.heartbeatMs
            self.features = features
        }

        /// The features this version of corkd lists in every `welcome`. `hook_query` is `hook.add`'s `query` and the
        /// `hooks` entries' `query`: a server without it would ignore the field and deliver every change, so a client
        /// sends a query only to a server that lists it.
        public static let serverFeatures = ["hooks", "inbox", "hook_query"]

        enum CodingKeys: String, CodingKey {
            case req, version, session, user, role
            case clientID = "client_id"
            case server, limits
            case heartbeatMs = "heartbeat_ms"
            case features
        }
    }
}
