import BoardCore
import BoardTransport
import BoardWire
import Foundation
import NIOCore
import NIOSSL

extension BoardClient {
    /// Seconds since the client started, on the monotonic clock (the state machine's and the bucket's time).
    var elapsed: Duration { ContinuousClock.now - started }

    /// The connection loop: dial, run a session, back off, dial again, until stopped. Runs in ``withClient(_:_:)``'s
    /// task group for the client's whole life.
    func runConnection() async {
        var action = machine.start()
        // Why the last dial or session failed: the reason the reconnecting state shows.
        var lastFailure: ConnectionMachine.Failure?
        while !isStopped {
            switch action {
            case .connect(let index):
                let endpoint = configuration.endpoints[index]
                setConnectionState(.connecting(endpoint: endpoint.description))
                let connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>
                do {
                    connection = try await open(endpoint)
                } catch {
                    if isStopped { return }
                    let failure = BoardClient.classify(error, endpoint: endpoint)
                    lastFailure = failure
                    logger.debug("connect failed", metadata: ["endpoint": "\(endpoint)", "error": "\(failure.error)"])
                    machine.nextRandom = Double.random(in: 0...1)
                    action = machine.connectFailed(failure, now: elapsed)
                    continue
                }
                machine.connected()
                let failure = await runSession(connection, endpoint: endpoint)
                lastFailure = failure
                if isStopped { return }
                logger.debug("session ended", metadata: ["endpoint": "\(endpoint)", "error": "\(failure.error)"])
                machine.nextRandom = Double.random(in: 0...1)
                action = machine.disconnected(failure, now: elapsed)
            case .wait(let delay):
                let reason = lastFailure?.error.message ?? "the connection ended"
                setConnectionState(.reconnecting(in: delay, lastError: reason))
                let early: Bool
                do {
                    early = try await waitOrRetry(delay)
                } catch {
                    return
                }
                if isStopped { return }
                if early {
                    action = machine.retryNow()
                } else {
                    action = machine.timerFired(now: elapsed)
                    if case .none = action { action = machine.timerFired(now: elapsed + delay) }
                }
            case .stop(let error):
                stopAll(error)
                return
            case .none:
                return
            }
        }
    }

    /// Ends a reconnect wait early: the next dial happens now instead of when the backoff says. Nothing while not
    /// waiting to reconnect.
    public func reconnectNow() {
        guard case .reconnecting = connectionState, !isStopped else { return }
        retrySink.yield(0)
    }

    /// Sleeps `delay`, or less when ``reconnectNow()`` asks; returns whether it was asked. Throws when the client
    /// stops meanwhile.
    ///
    /// The loop itself reads the request stream; a child task sleeps and then reports the end of the wait into the
    /// same stream (and is cancelled when a request comes first). Cancelling a task that awaits an AsyncStream ends
    /// the stream for good, so the reader is never the task that gets cancelled.
    func waitOrRetry(_ delay: Duration) async throws -> Bool {
        retryWaits += 1
        let wait = retryWaits
        let requests = retryRequests
        let sink = retrySink
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await Task.sleep(for: delay)
                sink.yield(wait)
            }
            defer { group.cancelAll() }
            // 0 is a request; an earlier wait's number (its sleeper beat the cancel) is stale.
            for await value in requests where value == 0 || value == wait { return value == 0 }
            throw CancellationError()
        }
    }

    /// Dials `endpoint`: the configured connector, or TLS over TCP.
    func open(_ endpoint: ClientConfiguration.Endpoint) async throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        if let connector = configuration.connector { return try await connector(endpoint) }
        var limits = TransportLimits.client
        limits.handshakeTimeout = .nanoseconds(Int64(configuration.connectTimeout.seconds * 1e9))
        return try await Transport.connect(
            host: endpoint.host, port: endpoint.port, group: configuration.eventLoopGroup, tls: tls,
            serverHostname: configuration.serverHostname, limits: limits)
    }

    /// One session on an open TLS connection: `hello`, then lines until the connection ends. Returns why it ended.
    func runSession(
        _ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>, endpoint: ClientConfiguration.Endpoint
    ) async -> ConnectionMachine.Failure {
        sessionFailure = nil
        welcome = nil
        isSubscribed = false
        fetching = nil
        let (stream, sink) = AsyncStream.makeStream(of: ByteBuffer.self)
        output = sink
        channel = connection.channel
        lastReceived = .now
        defer {
            output = nil
            channel = nil
            welcome = nil
            isSubscribed = false
            isSubscribing = false
            unsent = pendingOps.filter { $0.ackedSeq == nil }.map(\.mut)
            presence = [:]
        }
        do {
            try await connection.executeThenClose { inbound, outbound in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await buffer in stream { try await outbound.write(buffer) }
                        outbound.finish()
                    }
                    let heartbeat = self.configuration.heartbeatCheck
                    let channel = connection.channel
                    group.addTask { [weak self] in
                        while true {
                            try await Task.sleep(for: heartbeat)
                            guard let self, await self.checkLiveness() else {
                                channel.close(promise: nil)
                                return
                            }
                        }
                    }
                    sendHello()
                    for try await line in inbound {
                        lastReceived = .now
                        receive(line)
                        if isStopped { break }
                    }
                    sink.finish()
                    group.cancelAll()
                }
            }
        } catch {
            if let sessionFailure { return sessionFailure }
            // A session that was up and then broke (the server killed, the network gone) lost its connection; it
            // did not fail to connect.
            if welcome != nil, !(error is ClientError) {
                return ConnectionMachine.Failure(ClientError(.disconnected, "lost the connection to \(endpoint) (\(error))"))
            }
            return BoardClient.classify(error, endpoint: endpoint)
        }
        return sessionFailure
            ?? ConnectionMachine.Failure(ClientError(.disconnected, "\(endpoint) closed the connection"))
    }

    /// Whether the connection still shows signs of life; pings a quiet server, and gives up on a silent one.
    func checkLiveness() -> Bool {
        let heartbeat = Duration.milliseconds(welcome?.heartbeatMs ?? 30_000)
        let quiet = ContinuousClock.now - lastReceived
        if quiet > heartbeat * 2 {
            sessionFailure = ConnectionMachine.Failure(
                ClientError(.disconnected, "nothing from the server for \(quiet.seconds.rounded()) s"))
            return false
        }
        if quiet > heartbeat { send(.ping(Heartbeat())) }
        return true
    }

    func sendHello() {
        let hello = ClientMessage.Hello(
            req: 0, client: configuration.clientName, token: configuration.token, clientID: clientID)
        write(coder.encodeLine(.hello(hello)))
    }

    /// Writes one message on the current connection; dropped when offline (ops and requests are resent later).
    func send(_ message: ClientMessage) {
        write(coder.encodeLine(message))
    }

    func write(_ bytes: [UInt8]) {
        output?.yield(ByteBuffer(bytes: bytes))
    }

    /// What a failed dial or session means for the state machine.
    static func classify(_ error: any Error, endpoint: ClientConfiguration.Endpoint) -> ConnectionMachine.Failure {
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
        return .init(ClientError(.cannotConnect, "cannot connect to \(endpoint): \(error)"))
    }

    func setConnectionState(_ state: ConnectionState) {
        guard state != connectionState else { return }
        connectionState = state
        eventSink.yield(.connection(state))
    }

    /// Stops everything: fails every waiter, ends the event stream. Idempotent.
    func stopAll(_ error: ClientError?) {
        let wasStopped = isStopped
        isStopped = true
        if !wasStopped { setConnectionState(.stopped(error: error)) }
        let failure = error ?? ClientError(.stopped, "the client has stopped")
        for (_, outstanding) in requests { outstanding.waiter.resolve(.failure(failure)) }
        requests = [:]
        for (_, waiters) in opWaiters { for waiter in waiters { waiter.resolve(.failure(failure)) } }
        opWaiters = [:]
        for waiter in readyWaiters { waiter.resolve(.failure(failure)) }
        readyWaiters = []
        timerWake?.resume()
        timerWake = nil
        retrySink.finish()
        // The writer writes the last state and ends.
        journalKick.finish()
        eventSink.finish()
    }

    /// Ends the session politely (`bye`) and stops the client.
    func shutdown() {
        if output != nil { send(.bye(Bye(reason: "client"))) }
        output?.finish()
        channel?.close(promise: nil)
        stopAll(nil)
    }
}

extension ClientConfiguration {
    /// How often the connection checks that the server is alive.
    var heartbeatCheck: Duration { .seconds(5) }
}
