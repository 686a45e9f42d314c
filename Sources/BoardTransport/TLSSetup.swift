import NIOSSL

/// Builds the TLS contexts of the server and the client (Protocol.md, "Conventions", "Transport").
///
/// Both sides allow TLS 1.2 and 1.3 and negotiate 1.3 when the peer can. TLS 1.2 is limited to ECDHE key
/// exchange with AEAD ciphers (AES-GCM and ChaCha20-Poly1305); TLS 1.3's suites are all AEAD and not configurable.
/// Contexts are expensive: make one per process (or per certificate) and share it across connections.
public enum TLSSetup {
    /// The TLS 1.2 cipher suites both sides allow: ECDHE with AES-GCM or ChaCha20-Poly1305.
    public static let tls12CipherSuites: [NIOTLSCipher] = [
        .TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
        .TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
        .TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
        .TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
        .TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
        .TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
    ]

    /// The server's context: the certificate chain (leaf first) and its private key, TLS 1.2 minimum.
    public static func serverContext(
        certificateChain: [NIOSSLCertificate], privateKey: NIOSSLPrivateKey
    ) throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: certificateChain.map { .certificate($0) }, privateKey: .privateKey(privateKey))
        restrict(&configuration)
        return try NIOSSLContext(configuration: configuration)
    }

    /// A client context for `trust`.
    ///
    /// For the CA modes the context verifies the chain and the host name (the `serverHostname` given to the
    /// client handler, or the peer's IP address against the certificate's IP SANs when the host is an IP
    /// literal). For ``ServerTrust/pinned(_:)`` the context alone does not check the pin: use ``ClientTLS``,
    /// whose handler installs the pin check; ``Transport/configureClientChannel(_:tls:serverHostname:limits:)``
    /// does that.
    public static func clientContext(trust: ServerTrust) throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        restrict(&configuration)
        switch trust {
        case .pinned:
            // The pin callback replaces chain verification; the roots are never consulted.
            configuration.certificateVerification = .noHostnameVerification
            configuration.trustRoots = .certificates([])
        case .systemRoots:
            configuration.certificateVerification = .fullVerification
            configuration.trustRoots = .default
        case .roots(let roots):
            configuration.certificateVerification = .fullVerification
            configuration.trustRoots = .certificates(roots)
        }
        return try NIOSSLContext(configuration: configuration)
    }

    private static func restrict(_ configuration: inout TLSConfiguration) {
        configuration.minimumTLSVersion = .tlsv12
        configuration.maximumTLSVersion = nil
        configuration.cipherSuiteValues = tls12CipherSuites
    }
}
