import BoardCore
import BoardWire

/// The connection's lifecycle: dial, `hello`, the end of a connection, backoff, heartbeats, stop.
extension ClientSession {
    /// Starts dialling the first endpoint.
    public mutating func start(now: Duration) -> [Action] {
        guard case .idle = state else { return [] }
        var actions: [Action] = []
        dial(0, &actions)
        return actions
    }

    /// The dial succeeded (TLS is up): say `hello`.
    public mutating func dialed(now: Duration) -> [Action] {
        guard case .dialing(let endpoint) = state else { return [] }
        state = .handshaking(Link(endpoint: endpoint, lastReceived: now, checkAt: now + heartbeat))
        var actions: [Action] = [
            .send(.hello(ClientMessage.Hello(req: 0, client: settings.clientName, token: settings.token, clientID: clientID)))
        ]
        reschedule(&actions, now: now)
        return actions
    }

    /// The dial failed: the next endpoint, a backoff, or (fatal, or too many rounds) the end.
    public mutating func dialFailed(_ failure: Failure, now: Duration) -> [Action] {
        guard case .dialing = state else { return [] }
        var actions: [Action] = []
        if failure.isFatal {
            stop(failure.error, &actions)
            return actions
        }
        retry(rotation.dialFailed(retryAfter: failure.retryAfter, random: nextRandom), failure, now: now, &actions)
        return actions
    }

    /// The connection ended. `failure` is what the driver saw (nil: the server closed it cleanly); a reason the
    /// session learnt first (a `bye`, a closing `error`, silence) wins.
    public mutating func closed(_ failure: Failure?, now: Duration) -> [Action] {
        let link: Link
        switch state {
        case .handshaking(let current), .connected(let current, _), .subscribing(let current, _, _),
            .live(let current, _, _), .closing(let current):
            link = current
        default:
            return []
        }
        let endpoint = settings.endpoints.indices.contains(link.endpoint) ? settings.endpoints[link.endpoint] : "?"
        let why = link.failure ?? failure ?? Failure(ClientError(.disconnected, "\(endpoint) closed the connection"))
        // Everything of the connection goes with it: ops not acknowledged are sent again on the next one.
        unsent = pendingOps.filter { $0.ackedSeq == nil }.map(\.mut)
        var actions: [Action] = []
        if why.isFatal {
            stop(why.error, &actions)
            return actions
        }
        state = .dialing(endpoint: link.endpoint)
        retry(rotation.sessionEnded(retryAfter: why.retryAfter, random: nextRandom), why, now: now, &actions)
        return actions
    }

    /// The owner asks to dial now instead of waiting out the backoff. Nothing while not waiting.
    public mutating func reconnectNow(now: Duration) -> [Action] {
        guard case .backoff(_, let endpoint) = state else { return [] }
        var actions: [Action] = []
        dial(endpoint, &actions)
        reschedule(&actions, now: now)
        return actions
    }

    /// The deadline came: the backoff is over, the liveness check is due, or paced ops may go.
    public mutating func timerFired(now: Duration) -> [Action] {
        var actions: [Action] = []
        switch state {
        case .backoff(let until, let endpoint) where now >= until:
            dial(endpoint, &actions)
        case .handshaking(var link) where now >= link.checkAt:
            checkLiveness(&link, now: now, &actions)
            if case .handshaking = state { state = .handshaking(link) }
        case .connected(var link, let welcome) where now >= link.checkAt:
            checkLiveness(&link, now: now, &actions)
            if case .connected = state { state = .connected(link, welcome) }
        case .subscribing(var link, let welcome, let subscription) where now >= link.checkAt:
            checkLiveness(&link, now: now, &actions)
            if case .subscribing = state { state = .subscribing(link, welcome, subscription) }
        case .live(var link, let welcome, let subscription) where now >= link.checkAt:
            checkLiveness(&link, now: now, &actions)
            if case .live = state { state = .live(link, welcome, subscription) }
        default:
            break
        }
        flushOps(now: now, &actions)
        reschedule(&actions, now: now)
        return actions
    }

    /// The owner stops the client: `bye` and close when connected, then stop.
    public mutating func shutdown() -> [Action] {
        var actions: [Action] = []
        switch state {
        case .handshaking, .connected, .subscribing, .live:
            actions.append(.send(.bye(Bye(reason: "client"))))
            actions.append(.close)
        case .closing:
            actions.append(.close)
        default:
            break
        }
        stop(nil, &actions)
        return actions
    }

    // MARK: - Internals

    /// Pings a quiet server; closes on a silent one (nothing for two heartbeats). Only when the check is due, so a
    /// line arriving never moves the deadline.
    mutating func checkLiveness(_ link: inout Link, now: Duration, _ actions: inout [Action]) {
        let quiet = now - link.lastReceived
        if quiet >= heartbeat * 2 {
            link.failure = Failure(ClientError(.disconnected, "nothing from the server for \(Int(quiet.seconds.rounded())) s"))
            state = .closing(link)
            actions.append(.close)
            return
        }
        if quiet >= heartbeat {
            actions.append(.send(.ping(Heartbeat())))
            link.checkAt = link.lastReceived + heartbeat * 2
        } else {
            link.checkAt = link.lastReceived + heartbeat
        }
    }

    /// Notes that a line arrived (any line shows the server is alive).
    mutating func touch(now: Duration) {
        switch state {
        case .handshaking(var link):
            link.lastReceived = now
            state = .handshaking(link)
        case .connected(var link, let welcome):
            link.lastReceived = now
            state = .connected(link, welcome)
        case .subscribing(var link, let welcome, let subscription):
            link.lastReceived = now
            state = .subscribing(link, welcome, subscription)
        case .live(var link, let welcome, let subscription):
            link.lastReceived = now
            state = .live(link, welcome, subscription)
        default:
            break
        }
    }

    /// Records why the connection is ending (the server said so); the server closes it.
    mutating func ending(_ failure: Failure) {
        switch state {
        case .handshaking(var link):
            link.failure = failure
            state = .handshaking(link)
        case .connected(var link, let welcome):
            link.failure = failure
            state = .connected(link, welcome)
        case .subscribing(var link, let welcome, let subscription):
            link.failure = failure
            state = .subscribing(link, welcome, subscription)
        case .live(var link, let welcome, let subscription):
            link.failure = failure
            state = .live(link, welcome, subscription)
        default:
            break
        }
    }

    mutating func dial(_ endpoint: Int, _ actions: inout [Action]) {
        rotation.dialing(endpoint)
        state = .dialing(endpoint: endpoint)
        setConnectionState(.connecting(endpoint: settings.endpoints[endpoint]), &actions)
        actions.append(.connect(endpoint: endpoint))
    }

    mutating func retry(_ next: EndpointRotation.Next, _ failure: Failure, now: Duration, _ actions: inout [Action]) {
        switch next {
        case .dial(let endpoint):
            dial(endpoint, &actions)
        case .wait(let delay, let endpoint):
            state = .backoff(until: now + delay, endpoint: endpoint)
            setConnectionState(.reconnecting(in: delay, lastError: failure.error.message), &actions)
        case .giveUp:
            stop(failure.error, &actions)
            return
        }
        reschedule(&actions, now: now)
    }

    /// Stops for good.
    mutating func stop(_ error: ClientError?, _ actions: inout [Action]) {
        if isStopped { return }
        state = .stopped(error)
        setConnectionState(.stopped(error: error), &actions)
        scheduled = nil
        actions.append(.stop(error))
    }
}
