import NIOSSL

/// How a client decides that it talks to the right server.
public enum ServerTrust: Hashable, Sendable {
    /// Accept only a server whose leaf certificate has this fingerprint (trust on first use, like SSH); the CA
    /// chain, dates and host name are not consulted.
    case pinned(Fingerprint)
    /// Verify the chain against the system's trusted roots, and the host name.
    case systemRoots
    /// Verify the chain against these roots only, and the host name.
    case roots([NIOSSLCertificate])
}
