extension ClientMessage {
    /// `hello`: the first line of a connection. Authenticates with a token and names the highest protocol version
    /// the client speaks.
    ///
    /// The token never appears in `description`, `debugDescription` or `dump`.
    public struct Hello: Hashable, Sendable, Codable {
        /// Echoed in `welcome` or the `error`.
        public var req: RequestID?
        /// The highest protocol version the client speaks.
        public var version: Int
        /// The client software's name and version, e.g. `cork/0.1.0`.
        public var client: String
        /// The secret from the invite URL.
        public var token: String
        /// The client installation's id, kept across reconnects; the server assigns one when absent.
        public var clientID: ClientID?

        /// Makes a hello.
        public init(
            req: RequestID? = nil, version: Int = ProtocolVersion.current, client: String, token: String,
            clientID: ClientID? = nil
        ) {
            self.req = req
            self.version = version
            self.client = client
            self.token = token
            self.clientID = clientID
        }

        enum CodingKeys: String, CodingKey {
            case req, version, client, token
            case clientID = "client_id"
        }
    }
}

extension ClientMessage.Hello: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The hello with its token redacted.
    public var description: String {
        "hello(version: \(version), client: \(client), client_id: \(clientID?.rawValue ?? "-"), token: <redacted>)"
    }

    /// The hello with its token redacted.
    public var debugDescription: String { description }

    /// A mirror without the token, so `dump` cannot leak it.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: ["req": req as Any, "version": version, "client": client, "clientID": clientID as Any],
            displayStyle: .struct)
    }
}
