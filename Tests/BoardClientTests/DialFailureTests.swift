import BoardCore
import BoardTesting
import Foundation
import NIOSSL
import Testing

@testable import BoardClient

/// How the driver classifies a failed dial or session: a connection cut during the TLS handshake is a network
/// failure to retry, not a TLS failure to stop on (the cause of `cutConnectionsMidStreamLoseAndDoubleNothing`
/// failing now and then: a cut that landed while a reconnect was handshaking stopped the client for good).
@Suite struct DialFailureTests {
    static let endpoint = ClientConfiguration.Endpoint(host: "127.0.0.1", port: 7420)

    @Test func anEOFDuringTheTLSHandshakeIsRetried() {
        let eof = NIOSSLError.handshakeFailed(.sslError([.eofDuringHandshake]))
        let failure = BoardClient.classify(eof, endpoint: Self.endpoint)
        #expect(!failure.isFatal, "\(failure.error)")
        #expect(failure.error.code == .cannotConnect)
        let duringVerification = NIOSSLError.handshakeFailed(.sslError([.eofDuringAdditionalCertficiateChainValidation]))
        #expect(!BoardClient.classify(duringVerification, endpoint: Self.endpoint).isFatal)
        #expect(!BoardClient.classify(NIOSSLError.handshakeFailed(.zeroReturn), endpoint: Self.endpoint).isFatal)
    }

    @Test func aTLSHandshakeTheServerRefusesStopsTheClient() {
        let refused = NIOSSLError.handshakeFailed(.sslError([]))
        let failure = BoardClient.classify(refused, endpoint: Self.endpoint)
        #expect(failure.isFatal)
        #expect(failure.error.code == .tls)
    }

    /// Live: the first address accepts the TCP connection and closes it at once (mid-handshake, as a cut does);
    /// the client must go on to the next address, not stop with a TLS error.
    @Test func aConnectionClosedDuringTheHandshakeMovesOnToTheNextEndpoint() async throws {
        try await withTestServer { server in
            // A relay to a port nobody listens on: it accepts, fails to reach its target and closes.
            let nowhere = try await TCPProxy.start(to: 1)
            var configuration = LiveClientTests.configuration(server)
            configuration.endpoints = [
                .init(host: "127.0.0.1", port: nowhere.port), .init(host: "127.0.0.1", port: server.port),
            ]
            do {
                try await withClient(configuration) { client in
                    let board = try await client.ready(timeout: .seconds(20))
                    #expect(board.id == "main")
                }
            } catch {
                await nowhere.stop()
                throw error
            }
            await nowhere.stop()
        }
    }
}
