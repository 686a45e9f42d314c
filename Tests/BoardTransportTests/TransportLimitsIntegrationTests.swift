import BoardTransport
import NIOCore
import NIOPosix
import Testing

/// Tier 4: the framing and outbox bounds as a session sees them, over real TLS.
@Suite("Transport limits over TLS", .serialized)
struct TransportLimitsIntegrationTests {
    /// Reads until the pipeline gives up, reports the error, answers with its wire code and closes, the way a
    /// session does. An `auth` line raises the caps with `FramingCommand.authenticated`.
    static func sessionLike(errors: AsyncStream<TransportError>.Continuation) -> ConnectionHandler {
        { connection in
            let channel = connection.channel
            try await connection.executeThenClose { inbound, outbound in
                do {
                    for try await line in inbound {
                        if text(line) == "auth" {
                            try await channel.triggerUserOutboundEvent(FramingCommand.authenticated)
                            try await outbound.write(buffer("welcome\n"))
                        } else {
                            try await outbound.write(buffer("got \(line.readableBytes)\n"))
                        }
                    }
                } catch let error as TransportError {
                    errors.yield(error)
                    if let code = error.wireCode {
                        try await outbound.write(buffer("{\"type\":\"error\",\"code\":\"\(code.rawValue)\"}\n"))
                    }
                }
            }
        }
    }

    @Test("a pre-auth line over 4 KiB gets line_too_long and the connection closes; 4 KiB exactly passes")
    func lineTooLongBeforeAuth() async throws {
        let certificate = try TestCertificate()
        let (errors, continuation) = AsyncStream.makeStream(of: TransportError.self)
        try await withTestServer(certificate: certificate, handler: Self.sessionLike(errors: continuation)) {
            port, group in
            let client = try await Transport.connect(
                host: "127.0.0.1", port: port, group: group, tls: ClientTLS(trust: .pinned(certificate.fingerprint)))
            try await client.executeThenClose { inbound, outbound in
                var lines = inbound.makeAsyncIterator()
                try await outbound.write(buffer(String(repeating: "a", count: 4096) + "\n"))
                #expect(try await lines.next().map(text) == "got 4096")
                try await outbound.write(buffer(String(repeating: "b", count: 4097) + "\n"))
                #expect(try await lines.next().map(text) == #"{"type":"error","code":"line_too_long"}"#)
                // Then the server closes: the stream ends (cleanly or with an unclean TLS shutdown).
                let next = try? await lines.next()
                #expect(next == nil)
            }
            var serverErrors = errors.makeAsyncIterator()
            #expect(await serverErrors.next()?.code == .lineTooLong)
        }
    }

    @Test("after FramingCommand.authenticated the line cap is line_max")
    func capRisesAfterAuth() async throws {
        let certificate = try TestCertificate()
        let (_, continuation) = AsyncStream.makeStream(of: TransportError.self)
        try await withTestServer(certificate: certificate, handler: Self.sessionLike(errors: continuation)) {
            port, group in
            let client = try await Transport.connect(
                host: "127.0.0.1", port: port, group: group, tls: ClientTLS(trust: .pinned(certificate.fingerprint)))
            try await client.executeThenClose { inbound, outbound in
                var lines = inbound.makeAsyncIterator()
                try await outbound.write(buffer("auth\n"))
                #expect(try await lines.next().map(text) == "welcome")
                try await outbound.write(buffer(String(repeating: "c", count: 65536) + "\n"))
                #expect(try await lines.next().map(text) == "got 65536")
                try await outbound.write(buffer(String(repeating: "d", count: 65537) + "\n"))
                #expect(try await lines.next().map(text) == #"{"type":"error","code":"line_too_long"}"#)
            }
        }
    }

    @Test("a client that stops reading is closed as a slow consumer; the final line reaches it when it reads again")
    func slowConsumer() async throws {
        let certificate = try TestCertificate()
        var limits = TransportLimits.server
        limits.preauthOutboxBytes = 256 * 1024
        limits.outboxBytes = 256 * 1024
        let (errors, continuation) = AsyncStream.makeStream(of: (any Error)?.self)
        let chunk = ByteBuffer(string: String(repeating: "x", count: 16 * 1024 - 1) + "\n")
        // Fan-out style: hop to the loop, write many deltas, flush once; never wait for the peer.
        let flood: ConnectionHandler = { connection in
            let channel = connection.channel
            try await connection.executeThenClose { inbound, _ in
                // Start once the client says so: the handshake is done and it has stopped reading.
                var lines = inbound.makeAsyncIterator()
                _ = try await lines.next()
                await withThrowingTaskGroup(of: Void.self) { tasks in
                    tasks.addTask {
                        while channel.isActive, !Task.isCancelled {
                            channel.eventLoop.execute {
                                for _ in 0..<16 { channel.write(chunk, promise: nil) }
                                channel.flush()
                            }
                            try await Task.sleep(for: .milliseconds(1))
                        }
                    }
                    do {
                        while try await lines.next() != nil {}
                        continuation.yield(nil)
                    } catch {
                        continuation.yield(error)
                    }
                    tasks.cancelAll()
                }
            }
        }
        try await withTestServer(certificate: certificate, limits: limits, handler: flood) { port, group in
            let client = try await Transport.connect(
                host: "127.0.0.1", port: port, group: group, tls: ClientTLS(trust: .pinned(certificate.fingerprint)))
            try await client.executeThenClose { inbound, outbound in
                try await outbound.write(buffer("go\n"))
                // Do not read until the server has given up on us.
                var serverErrors = errors.makeAsyncIterator()
                let error = try #require(await serverErrors.next() ?? nil)
                #expect((error as? TransportError)?.code == .slowConsumer, "\(error)")

                var last: String?
                var count = 0
                do {
                    for try await line in inbound {
                        count += 1
                        last = text(line)
                    }
                } catch {
                    // An unclean TLS shutdown may end the stream; the lines before it still count.
                }
                #expect(count > 0)
                #expect(last == slowConsumerLine)
            }
        }
    }
}
