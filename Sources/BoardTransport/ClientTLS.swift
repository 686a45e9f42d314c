import NIOSSL
import X509

/// What a client needs to open TLS connections: the context and the trust it was built for.
///
/// A `NIOSSLContext` cannot carry a certificate pin (NIOSSL runs custom verification per connection handler), so
/// the client pipeline takes this pair and installs the pin check on each connection. Make one and share it.
public struct ClientTLS: Sendable {
    /// The TLS context, from ``TLSSetup/clientContext(trust:)``.
    public let context: NIOSSLContext
    /// How the server's certificate is checked.
    public let trust: ServerTrust
    /// For ``ServerTrust/pinned(_:)``: the roots that may vouch for a certificate that replaced the pinned one (a
    /// CA-issued certificate renewed), together with the host name; nil: the system's trusted roots, read only
    /// when a certificate differs from its pin.
    public let renewalRoots: CertificateStore?

    /// Builds the context for `trust`; `renewalRoots` replaces the system's roots for a renewed certificate.
    public init(trust: ServerTrust, renewalRoots: CertificateStore? = nil) throws {
        self.context = try TLSSetup.clientContext(trust: trust)
        self.trust = trust
        self.renewalRoots = renewalRoots
    }
}
