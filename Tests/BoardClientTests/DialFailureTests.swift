import BoardCore
import BoardTesting
import Foundation
import NIOCore
import BoardTransport
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

    /// What a newcomer reads when the port is wrong: words, not NIO's debug dump of the connection attempt.
    @Test func aRefusedConnectionIsSaidInWords() {
        let refused = IOError(errnoCode: ECONNREFUSED, reason: "connect")
        let failure = BoardClient.classify(refused, endpoint: Self.endpoint)
        #expect(!failure.isFatal)
        #expect(failure.error.code == .cannotConnect)
        #expect(failure.error.message.contains("connection refused (nothing listens on that port"), "\(failure.error.message)")
        #expect(!failure.error.message.contains("errno"), "\(failure.error.message)")
    }

    /// Live: a TLS client hello answered by something that does not speak TLS (an HTTP port that answers and keeps
    /// the connection open, as corkd's metrics port does): the client says so and stops.
    @Test func aServerThatDoesNotSpeakTLSIsNamed() async throws {
        let http = try PlainHTTPAnswerer()
        defer { http.stop() }
        var configuration = ClientConfiguration(
            endpoints: [.init(host: "127.0.0.1", port: http.port)], trust: .pinned(Fingerprint(derBytes: [1, 2, 3])),
            token: "ck_x", board: "main")
        configuration.clientName = "test"
        configuration.connectTimeout = .seconds(60)
        do {
            try await withClient(configuration) { client in
                // Generous: with the whole suite on two cores a first dial has taken over 10 s (the answer is
                // immediate once the handshake starts, and fatal).
                _ = try await client.ready(timeout: .seconds(90))
            }
            Issue.record("a client reached a board through an HTTP port")
        } catch let error as ClientError {
            #expect(error.message.contains("did not answer in TLS"), "\(error.message)")
        }
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

/// A TCP listener on 127.0.0.1 (a free port) that answers whatever arrives with an HTTP 400 and keeps the connection
/// open for two seconds: what a TLS client meets at an HTTP port.
final class PlainHTTPAnswerer: @unchecked Sendable {  // the descriptor is set once in init and closed once in stop
    let port: Int
    private let listener: Int32

    init() throws {
        (listener, port) = try LoopbackPort.listening()
        let listener = self.listener
        Thread.detachNewThread {
            while true {
                let connection = accept(listener, nil, nil)
                if connection < 0 { return }
                var buffer = [UInt8](repeating: 0, count: 4096)
                _ = read(connection, &buffer, buffer.count)
                let answer = Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".utf8)
                _ = write(connection, answer, answer.count)
                Thread.sleep(forTimeInterval: 2)
                close(connection)
            }
        }
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}

/// What a user reads when a session that was up breaks: words, not the name of a NIO error case.
@Suite struct SessionLostWordsTests {
    /// The server killed with `kill -9`: its end of the TLS connection closes without a close_notify.
    @Test func aServerThatVanishedMidSessionIsSaidInWords() {
        let endpoint = ClientConfiguration.Endpoint(host: "127.0.0.1", port: 7420)
        for error in [
            NIOSSLError.uncleanShutdown as any Error, IOError(errnoCode: ECONNRESET, reason: "read"),
            ChannelError.eof, ChannelError.ioOnClosedChannel,
        ] {
            let failure = BoardClient.sessionLost(error, endpoint: endpoint)
            #expect(failure.error.code == .disconnected)
            let message = failure.error.message
            #expect(message.hasPrefix("lost the connection to 127.0.0.1:7420: "), "\(message)")
            #expect(!message.contains("uncleanShutdown") && !message.contains("errno") && !message.contains("eof")
                && !message.contains("ioOnClosedChannel"), "\(message)")
        }
    }
}
