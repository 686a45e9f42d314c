import NIOSSL

/// What a client needs to open TLS connections: the context and the trust it was built for.
///
/// A `NIOSSLContext` cannot carry a certificate pin (NIOSSL runs custom verification per connection handler), so
/// the client pipeline takes this pair and installs the pin check on each connection. Make one and share it.
public struct ClientTLS: Sendable {
    /// The TLS context, from ``TLSSetup/clientContext(trust:)``.
    public let context: NIOSSLContext
    /// How the server's certificate is checked.
    public let trust: ServerTrust

    /// Builds the context for `trust`.
    public init(trust: ServerTrust) throws {
        self.context = try TLSSetup.clientContext(trust: trust)
        self.trust = trust
    }
}
