import BoardTransport
import Foundation
import NIOCore
import NIOPosix
import BoardTesting
import Testing

/// Tier 4: what the server accepts at the handshake (RELIABILITY.md T1, T2, T5), with OpenSSL as the other side.
@Suite("TLS handshake policy", .serialized, .startsProcesses(within: .minutes(3)))
struct TLSHandshakeTests {
    static let openssl = "/usr/bin/openssl"

    func sClient(port: Int, _ options: [String]) async throws -> ProcessResult {
        try await runProcess(
            Self.openssl, ["s_client", "-connect", "127.0.0.1:\(port)", "-servername", "localhost"] + options,
            timeout: 10)
    }

    @Test("TLS 1.1 is refused by the server, while TLS 1.2 and 1.3 succeed (positive controls)")
    func protocolVersions() async throws {
        let certificate = try TestCertificate()
        try await withTestServer(certificate: certificate) { port, _ in
            let tls13 = try await sClient(port: port, ["-tls1_3"])
            #expect(!tls13.timedOut)
            #expect(tls13.status == 0, "\(tls13.output)")
            #expect(tls13.output.contains("New, TLSv1.3"), "\(tls13.output)")

            let tls12 = try await sClient(port: port, ["-tls1_2"])
            #expect(tls12.status == 0, "\(tls12.output)")
            #expect(tls12.output.contains("New, TLSv1.2, Cipher is ECDHE-ECDSA-"), "\(tls12.output)")

            // SECLEVEL=0 makes OpenSSL 3 actually offer TLS 1.1; without it the client refuses locally and the
            // test would pass for the wrong reason.
            let tls11 = try await sClient(port: port, ["-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0"])
            #expect(!tls11.timedOut)
            #expect(tls11.status != 0, "\(tls11.output)")
            #expect(!tls11.output.contains("no protocols available"), "refused locally: \(tls11.output)")
            #expect(tls11.output.contains("alert protocol version"), "\(tls11.output)")
        }
    }

    @Test("TLS 1.2 without ECDHE + AEAD is refused, while an ECDHE + AEAD suite succeeds")
    func cipherSuites() async throws {
        let certificate = try TestCertificate()
        try await withTestServer(certificate: certificate) { port, _ in
            let aead = try await sClient(port: port, ["-tls1_2", "-cipher", "ECDHE-ECDSA-CHACHA20-POLY1305"])
            #expect(aead.status == 0, "\(aead.output)")
            #expect(aead.output.contains("Cipher is ECDHE-ECDSA-CHACHA20-POLY1305"), "\(aead.output)")

            let cbc = try await sClient(port: port, ["-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-SHA:@SECLEVEL=0"])
            #expect(cbc.status != 0, "\(cbc.output)")
            #expect(cbc.output.contains("handshake failure"), "\(cbc.output)")
        }
    }

    /// The handshake fails at the first plaintext byte and the server closes at once. How long that took is a
    /// figure, not an assertion (a loaded machine once took more than a second to run the close); the bound ends a
    /// server that never closes.
    @Test("plaintext on the TLS port is closed by the server")
    func plaintext() async throws {
        let certificate = try TestCertificate()
        try await withTestServer(certificate: certificate) { port, group in
            let channel = try await connectPlain(port: port, group: group)
            let start = ContinuousClock.now
            try await channel.writeAndFlush(buffer(#"{"type":"hello","version":1}"# + "\n"))
            try await withTimeout(30) { try await channel.closeFuture.get() }
            print("plaintext closed after \(ContinuousClock.now - start)")
        }
    }

    @Test("a socket that never starts the handshake is closed at the handshake timeout")
    func silentSocket() async throws {
        let certificate = try TestCertificate()
        var limits = TransportLimits.server
        limits.handshakeTimeout = .milliseconds(300)
        try await withTestServer(certificate: certificate, limits: limits) { port, group in
            let channel = try await connectPlain(port: port, group: group)
            let start = ContinuousClock.now
            try await withTimeout(3) { try await channel.closeFuture.get() }
            // Closed by the server's handshake timer (bounded by withTimeout). How long it took is a figure, not an
            // assertion: the server's timer starts at accept, before this side's clock does.
            print("closed after \(ContinuousClock.now - start)")
        }
    }

    @Test("half a handshake is closed at the handshake timeout too")
    func stalledHandshake() async throws {
        let certificate = try TestCertificate()
        var limits = TransportLimits.server
        limits.handshakeTimeout = .milliseconds(300)
        try await withTestServer(certificate: certificate, limits: limits) { port, group in
            let channel = try await connectPlain(port: port, group: group)
            let start = ContinuousClock.now
            // The first bytes of a TLS record header of a ClientHello, then nothing.
            var partial = ByteBuffer()
            partial.writeBytes([0x16, 0x03, 0x01, 0x02, 0x00, 0x01])
            // On a loaded machine the server's timer (which starts at accept) can fire before this write: then the
            // write finds the connection closed already, which is the outcome under test.
            do {
                try await channel.writeAndFlush(partial)
            } catch ChannelError.ioOnClosedChannel {
                print("closed before the partial record was written")
            }
            try await withTimeout(3) { try await channel.closeFuture.get() }
            // Closed by the server's handshake timer (bounded by withTimeout). How long it took is a figure, not an
            // assertion: the server's timer starts at accept, before this side's clock does.
            print("closed after \(ContinuousClock.now - start)")
        }
    }
}
