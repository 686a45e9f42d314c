import BoardTransport
import NIOCore
import NIOPosix
import NIOSSL
import Testing
import X509

/// Tier 4: the real pipeline over real TLS on 127.0.0.1, port 0, every wait bounded.
@Suite("TLS over loopback", .serialized)
struct TLSIntegrationTests {
    @Test("a pinned client and the server exchange lines both ways")
    func roundTrip() async throws {
        let certificate = try TestCertificate()
        try await withTestServer(certificate: certificate) { port, group in
            let client = try await Transport.connect(
                host: "127.0.0.1", port: port, group: group,
                tls: ClientTLS(trust: .pinned(certificate.fingerprint)), serverHostname: "localhost")
            try await client.executeThenClose { inbound, outbound in
                var lines = inbound.makeAsyncIterator()
                let greeting = try await lines.next()
                #expect(greeting.map(text) == "greeting")
                try await outbound.write(buffer("{\"type\":\"ping\"}\r\n"))
                try await outbound.write(buffer("split "))
                try await outbound.write(buffer("line\n\nlast\n"))
                #expect(try await lines.next().map(text) == "echo:{\"type\":\"ping\"}")
                #expect(try await lines.next().map(text) == "echo:split line")
                #expect(try await lines.next().map(text) == "echo:last")
            }
        }
    }

    @Test("a pinned client refuses a certificate with another fingerprint, and says why")
    func pinMismatch() async throws {
        let certificate = try TestCertificate()
        let wrong = Fingerprint(derBytes: [0x42])
        try await withTestServer(certificate: certificate) { port, group in
            let error = try await #require(throws: TransportError.self) {
                _ = try await Transport.connect(
                    host: "127.0.0.1", port: port, group: group, tls: ClientTLS(trust: .pinned(wrong)))
            }
            #expect(error.code == .pinMismatch)
            #expect(
                error.message
                    == "certificate fingerprint \(certificate.fingerprint) does not match the pinned \(wrong)")
        }
    }

    @Test("system roots refuse a self-signed certificate")
    func systemRootsRefuseSelfSigned() async throws {
        let certificate = try TestCertificate()
        try await withTestServer(certificate: certificate) { port, group in
            let error = await #expect(throws: NIOSSLError.self) {
                _ = try await Transport.connect(
                    host: "127.0.0.1", port: port, group: group, tls: ClientTLS(trust: .systemRoots),
                    serverHostname: "localhost")
            }
            #expect("\(String(describing: error))".contains("CERTIFICATE_VERIFY_FAILED"))
        }
    }

    @Test("explicit roots refuse a self-signed certificate, whether another one or the server's own")
    func explicitRootsRefuseSelfSigned() async throws {
        let certificate = try TestCertificate(hosts: ["localhost"])
        let other = try TestCertificate(hosts: ["localhost"])
        try await withTestServer(certificate: certificate) { port, group in
            // Our self-signed certificate is not a CA (no keyCertSign), so it cannot anchor a chain: pin it instead.
            for root in [other.certificate, certificate.certificate] {
                let error = await #expect(throws: NIOSSLError.self) {
                    _ = try await Transport.connect(
                        host: "127.0.0.1", port: port, group: group, tls: ClientTLS(trust: .roots([root])),
                        serverHostname: "localhost")
                }
                #expect("\(String(describing: error))".contains("CERTIFICATE_VERIFY_FAILED"))
            }
        }
    }

    @Test("a CA-issued certificate is accepted with its CA and the right host; another CA or host is refused")
    func certificateAuthority() async throws {
        let authority = try TestCertificateAuthority()
        let otherRoot = try TestCertificateAuthority().root
        let root = authority.root
        let issued = try authority.issue(dnsNames: ["corkd.test"])
        let certificate = try TestCertificate(certificate: issued.certificate, key: issued.key)
        try await withTestServer(certificate: certificate) { port, group in
            // Positive control: the right root and the right host name.
            let client = try await Transport.connect(
                host: "127.0.0.1", port: port, group: group, tls: ClientTLS(trust: .roots([root])),
                serverHostname: "corkd.test")
            try await client.executeThenClose { inbound, _ in
                var lines = inbound.makeAsyncIterator()
                let greeting = try await lines.next()
                #expect(greeting.map(text) == "greeting")
            }

            let unknownCA = await #expect(throws: NIOSSLError.self) {
                _ = try await Transport.connect(
                    host: "127.0.0.1", port: port, group: group, tls: ClientTLS(trust: .roots([otherRoot])),
                    serverHostname: "corkd.test")
            }
            #expect("\(String(describing: unknownCA))".contains("CERTIFICATE_VERIFY_FAILED"))

            let wrongHost = await #expect(throws: NIOSSLExtraError.self) {
                _ = try await Transport.connect(
                    host: "127.0.0.1", port: port, group: group, tls: ClientTLS(trust: .roots([root])),
                    serverHostname: "wrong.test")
            }
            #expect(wrongHost == .failedToValidateHostname)

            // An IP literal is not sent as SNI; the peer address is matched against IP SANs, and there are none.
            await #expect(throws: NIOSSLExtraError.self) {
                _ = try await Transport.connect(
                    host: "127.0.0.1", port: port, group: group, tls: ClientTLS(trust: .roots([root])))
            }
        }
    }

    @Test("a pinned client accepts a certificate that replaced the pin when a trusted CA vouches for it and the host")
    func renewedCertificate() async throws {
        let authority = try TestCertificateAuthority()
        let issued = try authority.issue(dnsNames: ["corkd.test"])
        let renewed = try TestCertificate(certificate: issued.certificate, key: issued.key)
        let old = try TestCertificate(hosts: ["corkd.test"]).fingerprint
        let root = try Certificate(derEncoded: authority.root.toDERBytes())
        let otherRoot = try Certificate(derEncoded: TestCertificateAuthority().root.toDERBytes())
        try await withTestServer(certificate: renewed) { port, group in
            // The CA the client trusts issued it, for the name the client dialled: the renewal is accepted.
            let client = try await Transport.connect(
                host: "127.0.0.1", port: port, group: group,
                tls: ClientTLS(trust: .pinned(old), renewalRoots: CertificateStore([root])), serverHostname: "corkd.test")
            try await client.executeThenClose { inbound, _ in
                var lines = inbound.makeAsyncIterator()
                let greeting = try await lines.next()
                #expect(greeting.map(text) == "greeting")
            }
            // Another CA, another name, or an IP address the certificate does not name: the pin's refusal stands.
            for (roots, hostname) in [([otherRoot], "corkd.test"), ([root], "wrong.test"), ([root], nil)] {
                let error = await #expect(throws: TransportError.self) {
                    _ = try await Transport.connect(
                        host: "127.0.0.1", port: port, group: group,
                        tls: ClientTLS(trust: .pinned(old), renewalRoots: CertificateStore(roots)), serverHostname: hostname)
                }
                #expect(error?.code == .pinMismatch, "\(String(describing: hostname))")
            }
        }
        // A self-signed certificate that replaced the pin is refused even by a client whose CA store has it: it is
        // not a CA, so no chain can be built to it.
        let selfSigned = try TestCertificate(hosts: ["corkd.test"])
        let itself = try Certificate(derEncoded: selfSigned.certificate.toDERBytes())
        try await withTestServer(certificate: selfSigned) { port, group in
            let error = await #expect(throws: TransportError.self) {
                _ = try await Transport.connect(
                    host: "127.0.0.1", port: port, group: group,
                    tls: ClientTLS(trust: .pinned(old), renewalRoots: CertificateStore([itself])), serverHostname: "corkd.test")
            }
            #expect(error?.code == .pinMismatch)
        }
    }

    @Test("a client gives up on a server that never answers the handshake")
    func clientHandshakeTimeout() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let silent = try await ServerBootstrap(group: group).bind(host: "127.0.0.1", port: 0).get()
            let port = try #require(silent.localAddress?.port)
            let limits = {
                var limits = TransportLimits.client
                limits.handshakeTimeout = .milliseconds(300)
                return limits
            }()
            let error = try await #require(throws: TransportError.self) {
                try await withTimeout(5) {
                    _ = try await Transport.connect(
                        host: "127.0.0.1", port: port, group: group,
                        tls: ClientTLS(trust: .systemRoots), serverHostname: "localhost", limits: limits)
                }
            }
            #expect(error.code == .handshakeTimeout)
            try await silent.close()
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        try await group.shutdownGracefully()
    }
}
