import BoardCore
import BoardTransport
import BoardWire
import Foundation
import NIOCore
import NIOPosix
import NIOSSL

extension BoardClient {
    /// The connection loop: dials what the session asks for and runs each session, until the client stops. Runs in
    /// ``withClient(_:_:)``'s task group for the client's whole life.
    func runConnection() async {
        carryOut(session.start(now: elapsed))
        connectionPhase = "waiting for a dial"
        defer { connectionPhase = "ended" }
        for await index in dials {
            if session.isStopped { return }
            let endpoint = configuration.endpoints[index]
            let connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>
            connectionPhase = "opening \(endpoint)"
            do {
                connection = try await open(endpoint)
            } catch {
                connectionPhase = "waiting for a dial (open failed: \(error))"
                if session.isStopped { return }
                let failure = BoardClient.classify(error, endpoint: endpoint)
                logger.debug("connect failed", metadata: ["endpoint": "\(endpoint)", "error": "\(failure.error)"])
                session.nextRandom = Double.random(in: 0...1)
                carryOut(session.dialFailed(failure, now: elapsed))
                continue
            }
            connectionPhase = "in a session with \(endpoint)"
            let failure = await runSession(connection, endpoint: endpoint)
            connectionPhase = "waiting for a dial (session ended: \(String(describing: failure?.error)))"
            if session.isStopped { return }
            logger.debug("session ended", metadata: ["endpoint": "\(endpoint)", "error": "\(String(describing: failure?.error))"])
            session.nextRandom = Double.random(in: 0...1)
            carryOut(session.closed(failure, now: elapsed))
        }
    }

    /// Ends a reconnect wait early: the next dial happens now instead of when the backoff says. Nothing while not
    /// waiting to reconnect.
    public func reconnectNow() {
        carryOut(session.reconnectNow(now: elapsed))
    }

    /// Dials `endpoint`: the configured connector, or TLS over TCP.
    func open(_ endpoint: ClientConfiguration.Endpoint) async throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        guard let tls else {
            guard let connector = configuration.connector else { throw ClientError(.tls, "no TLS set up") }
            return try await connector(endpoint)
        }
        var limits = TransportLimits.client
        limits.handshakeTimeout = .nanoseconds(Int64(configuration.connectTimeout.seconds * 1e9))
        return try await Transport.connect(
            host: endpoint.host, port: endpoint.port, group: configuration.eventLoopGroup, tls: tls,
            serverHostname: configuration.serverHostname, limits: limits)
    }

    /// One session on an open connection: the session says `hello`, then lines go in until the connection ends.
    /// Returns what the driver saw end it (nil: the server closed it cleanly).
    func runSession(
        _ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>, endpoint: ClientConfiguration.Endpoint
    ) async -> ClientSession.Failure? {
        let (stream, sink) = AsyncStream.makeStream(of: ByteBuffer.self)
        output = sink
        channel = connection.channel
        defer {
            output = nil
            channel = nil
        }
        carryOut(session.dialed(now: elapsed))
        do {
            try await connection.executeThenClose { inbound, outbound in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await buffer in stream { try await outbound.write(buffer) }
                        outbound.finish()
                    }
                    for try await line in inbound {
                        receive(line)
                        if session.isStopped { break }
                    }
                    sink.finish()
                    group.cancelAll()
                }
            }
        } catch {
            // A session that was up and then broke (the server killed, the network gone) lost its connection; it
            // did not fail to connect.
            if session.welcome != nil, !(error is ClientError) { return BoardClient.sessionLost(error, endpoint: endpoint) }
            return BoardClient.classify(error, endpoint: endpoint)
        }
        return nil
    }

    /// Hands one line to the session.
    func receive(_ line: ByteBuffer) {
        let message: ServerMessage
        do {
            message = try coder.decodeServer(line.readableBytesView)
        } catch {
            logger.debug("undecodable line from the server", metadata: ["error": "\(error)"])
            session.receivedUnreadable(now: elapsed)
            return
        }
        carryOut(session.received(message, now: elapsed))
    }

    /// Carries out the session's actions, in order.
    func carryOut(_ actions: [ClientSession.Action]) {
        for action in actions {
            switch action {
            case .connect(let endpoint):
                dialSink.yield(endpoint)
            case .send(let message):
                output?.yield(ByteBuffer(bytes: coder.encodeLine(message)))
            case .close:
                output?.finish()
                channel?.close(promise: nil)
            case .emit(let event):
                eventSink.yield(event)
            case .resolve(let resolution):
                resolve(resolution)
            case .persist:
                journalKick.yield()
            case .schedule(let deadline):
                sessionDeadline = deadline.map { started + $0 }
                armTimer()
            case .stop(let error):
                stopAll(error)
            }
        }
    }

    /// Resumes whoever waits for `resolution`.
    func resolve(_ resolution: ClientSession.Resolution) {
        switch resolution {
        case .op(let mut, let outcome):
            for waiter in opWaiters.removeValue(forKey: mut) ?? [] { waiter.resolve(.success(outcome)) }
        case .opFailed(let mut, let error):
            for waiter in opWaiters.removeValue(forKey: mut) ?? [] { waiter.resolve(.failure(error)) }
        case .opMoved(let from, let to):
            if let waiters = opWaiters.removeValue(forKey: from) { opWaiters[to, default: []] += waiters }
        case .answer(let id, let message):
            requests.removeValue(forKey: id)?.resolve(.success(message))
        case .board(let board):
            let waiters = readyWaiters
            readyWaiters = []
            for waiter in waiters { waiter.resolve(.success(board)) }
        case .boardFailed(let error):
            let waiters = readyWaiters
            readyWaiters = []
            for waiter in waiters { waiter.resolve(.failure(error)) }
        case .durable(let mut):
            durableWaiters.removeValue(forKey: mut)?.resume()
        case .notDurable(let mut, let error):
            durableWaiters.removeValue(forKey: mut)?.resume(throwing: error)
        }
    }

    /// What a failed dial or session means for the session.
    static func classify(_ error: any Error, endpoint: ClientConfiguration.Endpoint) -> ClientSession.Failure {
        if let transport = error as? TransportError {
            if transport.code == .pinMismatch {
                return .init(
                    ClientError(.tls, "\(endpoint) presented a certificate that does not match the pinned fingerprint"),
                    isFatal: true)
            }
            return .init(ClientError(.cannotConnect, "\(endpoint): \(transport)"))
        }
        if let ssl = error as? NIOSSLError {
            switch ssl {
            case .handshakeFailed(let cause) where BoardClient.isCut(cause):
                // The connection went away mid-handshake (a network drop, a server restarting, a proxy cutting it):
                // NIOSSL reports that as a failed handshake too, but nothing was refused, so it is retried.
                return .init(ClientError(.cannotConnect, "the connection to \(endpoint) closed during the TLS handshake"))
            case .handshakeFailed(let cause) where "\(cause)".contains("WRONG_VERSION_NUMBER"):
                // The other side answered, but not in TLS: an HTTP port (corkd's metrics or health), another service.
                return .init(
                    ClientError(.tls, "\(endpoint) did not answer in TLS: is that corkd's client port (not its metrics or health port)?"),
                    isFatal: true)
            case .handshakeFailed(let cause) where "\(cause)".contains("CERTIFICATE_VERIFY_FAILED"):
                // No pin, so the system's trusted authorities decide, and a self-signed certificate (corkd's own)
                // is not theirs: an invite URL that lost its fp.
                return .init(
                    ClientError(
                        .tls,
                        "\(endpoint)'s certificate could not be verified: no authority this machine trusts signed it, and the URL pins no fingerprint (use the invite URL corkd printed, with its fp=sha256:…)"),
                    isFatal: true)
            case .handshakeFailed:
                return .init(ClientError(.tls, "TLS with \(endpoint) failed: \(ssl)"), isFatal: true)
            default:
                return .init(ClientError(.cannotConnect, "TLS with \(endpoint) failed: \(ssl)"))
            }
        }
        if let ssl = error as? NIOSSLExtraError {
            return .init(ClientError(.tls, "TLS with \(endpoint) failed: \(ssl)"), isFatal: true)
        }
        if let client = error as? ClientError { return .init(client, isFatal: client.isFatal) }
        return .init(ClientError(.cannotConnect, "cannot connect to \(endpoint): \(ConnectionWords.dialFailure(error))"))
    }

    /// A session that was up and broke (not a failed dial), with why in words: the client reconnects.
    static func sessionLost(_ error: any Error, endpoint: ClientConfiguration.Endpoint) -> ClientSession.Failure {
        ClientSession.Failure(ClientError(.disconnected, "lost the connection to \(endpoint): \(ConnectionWords.sessionEnd(error))"))
    }

    /// Whether a failed handshake means the connection was cut rather than refused: an EOF or a close before the
    /// handshake ended, or a socket error under it. A refusal (no shared protocol, a certificate that does not
    /// verify) carries BoringSSL's own errors instead.
    static func isCut(_ cause: BoringSSLError) -> Bool {
        switch cause {
        case .zeroReturn, .syscallError:
            return true
        case .sslError(let errors):
            return errors.contains(.eofDuringHandshake) || errors.contains(.eofDuringAdditionalCertficiateChainValidation)
        default:
            return false
        }
    }

    /// The session stopped: fails every waiter, ends the loops and the event stream. Idempotent.
    func stopAll(_ error: ClientError?) {
        let failure = error ?? ClientError(.stopped, "the client has stopped")
        for (_, waiter) in requests { waiter.resolve(.failure(failure)) }
        requests = [:]
        for (_, waiters) in opWaiters { for waiter in waiters { waiter.resolve(.failure(failure)) } }
        opWaiters = [:]
        for waiter in readyWaiters { waiter.resolve(.failure(failure)) }
        readyWaiters = []
        timerWake?.resume()
        timerWake = nil
        dialSink.finish()
        // The writer writes the last state and ends; submitters still waiting hear from it.
        journalKick.finish()
        eventSink.finish()
    }

    /// Ends the session politely (`bye`) and stops the client.
    func shutdown() {
        carryOut(session.shutdown())
        // Stopped before: the waiters are failed already; this is idempotent.
        stopAll(nil)
    }
}
