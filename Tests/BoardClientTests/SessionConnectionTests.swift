import BoardClient
import BoardCore
import BoardWire
import Testing

/// The session's connection states, walked with a manual clock: dial, backoff, rounds over endpoints, fatal
/// failures, heartbeats. No sockets, no sleeping.
@Suite struct SessionConnectionTests {
    static let refused = ClientSession.Failure(ClientError(.cannotConnect, "refused"))
    static let dropped = ClientSession.Failure(ClientError(.disconnected, "closed"))
    static let policy = ReconnectPolicy(initial: .milliseconds(100), maximum: .seconds(2), multiplier: 2, jitter: 0.5)

    static func session(endpoints: Int = 1, policy: ReconnectPolicy = policy, board: BoardID? = nil) -> ClientSession {
        var session = ClientSession(
            settings: .init(
                endpoints: (0..<endpoints).map { "host\($0):7420" }, token: "t0ken", board: board, policy: policy))
        session.nextRandom = 0
        return session
    }

    /// Dials, connects and gets a `welcome` at `now`.
    static func welcomed(_ session: inout ClientSession, now: Duration = .zero) {
        _ = session.dialed(now: now)
        _ = session.received(.welcome(SessionMachineTests.welcome()), now: now)
    }

    @Test func backoffDoublesUpToTheCapWithJitterInsideItsBand() {
        #expect(Self.policy.delay(round: 0, random: 0) == .milliseconds(100))
        #expect(Self.policy.delay(round: 0, random: 1) == .milliseconds(50))
        #expect(Self.policy.delay(round: 3, random: 0) == .milliseconds(800))
        #expect(Self.policy.delay(round: 10, random: 0) == .seconds(2))
        #expect(Self.policy.delay(round: 10, random: 0.5) == .milliseconds(1500))
    }

    @Test func aSingleEndpointBacksOffAfterEachFailureAndResetsOnWelcome() {
        var session = Self.session()
        #expect(session.start(now: .zero).dial == 0)
        var now = Duration.zero
        var actions = session.dialFailed(Self.refused, now: now)
        #expect(actions.scheduled == .some(.milliseconds(100)))
        #expect(session.connectionState == .reconnecting(in: .milliseconds(100), lastError: "refused"))
        // The timer is early: nothing happens.
        #expect(session.timerFired(now: now + .milliseconds(99)).dial == nil)
        now += .milliseconds(100)
        #expect(session.timerFired(now: now).dial == 0)
        #expect(session.dialFailed(Self.refused, now: now).scheduled == .some(now + .milliseconds(200)))
        now += .milliseconds(200)
        #expect(session.timerFired(now: now).dial == 0)
        #expect(session.dialFailed(Self.refused, now: now).scheduled == .some(now + .milliseconds(400)))
        now += .milliseconds(400)
        #expect(session.timerFired(now: now).dial == 0)
        Self.welcomed(&session, now: now)
        actions = session.closed(Self.dropped, now: now)
        #expect(actions.scheduled == .some(now + .milliseconds(100)), "the welcome reset the backoff")
    }

    /// The user asks to reconnect now (`r` in cork): the wait ends early, once, and the backoff goes on from there.
    @Test func reconnectNowEndsTheWaitEarly() {
        var session = Self.session()
        #expect(session.reconnectNow(now: .zero).isEmpty, "nothing to cut short before the first dial")
        _ = session.start(now: .zero)
        #expect(session.reconnectNow(now: .zero).isEmpty, "nor while dialling")
        _ = session.dialFailed(Self.refused, now: .zero)
        #expect(session.reconnectNow(now: .zero).dial == 0)
        #expect(session.timerFired(now: .seconds(1)).dial == nil, "the cut-short wait's timer does nothing")
        #expect(session.dialFailed(Self.refused, now: .zero).scheduled == .some(.milliseconds(200)))
    }

    @Test func aDownEndpointMovesToTheNextAtOnceThenTheRoundBacksOff() {
        var session = Self.session(endpoints: 3)
        #expect(session.start(now: .zero).dial == 0)
        #expect(session.dialFailed(Self.refused, now: .zero).dial == 1)
        #expect(session.dialFailed(Self.refused, now: .zero).dial == 2)
        #expect(session.dialFailed(Self.refused, now: .zero).scheduled == .some(.milliseconds(100)))
        #expect(session.timerFired(now: .milliseconds(100)).dial == 0)
        #expect(session.dialFailed(Self.refused, now: .milliseconds(100)).dial == 1)
        Self.welcomed(&session, now: .milliseconds(100))
        #expect(session.connectionState == .connected(endpoint: "host1:7420", user: "bob"))
        // A session on endpoint 1 drops: wait, then that endpoint again first.
        #expect(session.closed(Self.dropped, now: .seconds(1)).scheduled == .some(.seconds(1) + .milliseconds(100)))
        #expect(session.timerFired(now: .seconds(2)).dial == 1)
        #expect(session.dialFailed(Self.refused, now: .seconds(2)).dial == 2)
    }

    @Test func theServersRetryHintWinsWhenLonger() {
        var session = Self.session()
        _ = session.start(now: .zero)
        _ = session.dialed(now: .zero)
        let full = ClientSession.Failure(ClientError(.server, "server_full"), retryAfter: .seconds(5))
        #expect(session.closed(full, now: .zero).scheduled == .some(.seconds(5)))
    }

    /// A `bye` with `retry_after_ms` is why the connection ended, whatever the socket said after it.
    @Test func aByeIsWhyTheConnectionEndedAndItsHintIsKept() {
        var session = Self.session()
        _ = session.start(now: .zero)
        Self.welcomed(&session)
        _ = session.received(.bye(Bye(reason: "restart", retryAfterMs: 3_000)), now: .zero)
        let actions = session.closed(Self.dropped, now: .zero)
        #expect(actions.scheduled == .some(.seconds(3)))
        #expect(session.connectionState == .reconnecting(in: .seconds(3), lastError: "the server is closing (restart)"))
    }

    @Test func aFatalFailureStopsForGood() {
        var session = Self.session(endpoints: 2)
        _ = session.start(now: .zero)
        let pin = ClientSession.Failure(ClientError(.tls, "pin mismatch"), isFatal: true)
        let actions = session.dialFailed(pin, now: .zero)
        #expect(actions.stopped == .some(pin.error))
        #expect(session.connectionState == .stopped(error: pin.error))
        #expect(session.timerFired(now: .seconds(100)).dial == nil)
        #expect(throws: ClientError.self) { try session.submit(.op(.closeCard(card: "c1")), wallClock: .init(milliseconds: 0), now: .zero) }
    }

    @Test func maxRoundsUntilConnectedFailsFastOnlyBeforeTheFirstWelcome() {
        let policy = ReconnectPolicy(initial: .milliseconds(10), maximum: .milliseconds(10), maxRoundsUntilConnected: 1)
        var never = Self.session(policy: policy)
        _ = never.start(now: .zero)
        #expect(never.dialFailed(Self.refused, now: .zero).stopped == .some(Self.refused.error))

        var once = Self.session(policy: policy)
        _ = once.start(now: .zero)
        Self.welcomed(&once)
        var now = Duration.zero
        #expect(once.closed(Self.dropped, now: now).scheduled != nil)
        for _ in 0..<5 {
            now += .seconds(1)
            #expect(once.timerFired(now: now).dial == 0)
            #expect(once.dialFailed(Self.refused, now: now).stopped == nil, "gave up after a welcome")
        }
    }

    /// A server that answers the login with when to try again (its database is down: `storage_busy`) is reachable
    /// and the URL right: a long-running client keeps trying, as after a welcome. It had given up after the
    /// fail-fast rounds, so a `cork watch` started during a database outage exited.
    @Test func aLoginAnsweredWithRetryAfterIsNotAFailFastFailure() {
        let policy = ReconnectPolicy(initial: .milliseconds(10), maximum: .milliseconds(10), maxRoundsUntilConnected: 1)
        var session = Self.session(policy: policy)
        _ = session.start(now: .zero)
        var now = Duration.zero
        for _ in 0..<5 {
            _ = session.dialed(now: now)
            var busy = WireError(.storageBusy, "the server could not check the token", retryAfterMs: 1_000)
            busy.closesConnection = true
            _ = session.received(.error(busy), now: now)
            let actions = session.closed(nil, now: now)
            #expect(actions.stopped == nil, "gave up on a server that asked to try again")
            #expect(actions.scheduled == .some(now + .seconds(1)), "the server's retry_after_ms")
            now += .seconds(1)
            #expect(session.timerFired(now: now).dial == 0)
        }
    }

    @Test func maxRoundsGivesUp() {
        var policy = Self.policy
        policy.maxRounds = 2
        var session = Self.session(policy: policy)
        _ = session.start(now: .zero)
        #expect(session.dialFailed(Self.refused, now: .zero).stopped == nil)
        _ = session.timerFired(now: .seconds(10))
        #expect(session.dialFailed(Self.refused, now: .seconds(10)).stopped == .some(Self.refused.error))
    }

    /// A quiet server is pinged after one heartbeat; a silent one is closed after two, and the reason is why the
    /// session reconnects. A line in between keeps it alive; no line moves the timer.
    @Test func aQuietServerIsPingedAndASilentOneClosed() {
        var session = Self.session()
        _ = session.start(now: .zero)
        Self.welcomed(&session)  // heartbeat 10 s
        #expect(session.nextDeadline(now: .zero) == .seconds(10))
        _ = session.received(.pong(Heartbeat()), now: .seconds(4))
        #expect(session.nextDeadline(now: .seconds(4)) == .seconds(10), "a line does not move the timer")
        var actions = session.timerFired(now: .seconds(10))
        #expect(actions.sent.isEmpty, "a line came 6 s ago: no ping yet")
        #expect(actions.scheduled == .some(.seconds(14)))
        actions = session.timerFired(now: .seconds(14))
        guard case .ping = actions.sent.first else {
            Issue.record("no ping after a quiet heartbeat: \(actions.sent)")
            return
        }
        #expect(actions.scheduled == .some(.seconds(24)))
        actions = session.timerFired(now: .seconds(24))
        #expect(actions.closes)
        actions = session.closed(nil, now: .seconds(24))
        guard case .reconnecting(_, let reason) = session.connectionState else {
            Issue.record("not reconnecting: \(session.connectionState)")
            return
        }
        #expect(reason == "nothing from the server for 20 s")
    }
}

extension [ClientSession.Action] {
    /// The endpoint a `connect` asks for.
    var dial: Int? {
        for case .connect(let endpoint) in self { return endpoint }
        return nil
    }

    /// The lines sent, in order.
    var sent: [ClientMessage] {
        compactMap { if case .send(let message) = $0 { message } else { nil } }
    }

    /// The events emitted, in order.
    var events: [ClientEvent] {
        compactMap { if case .emit(let event) = $0 { event } else { nil } }
    }

    /// The resolutions, in order.
    var resolutions: [ClientSession.Resolution] {
        compactMap { if case .resolve(let resolution) = $0 { resolution } else { nil } }
    }

    /// The last deadline scheduled (nil: none scheduled; .some(nil): cleared).
    var scheduled: Duration?? {
        for case .schedule(let deadline) in reversed() { return .some(deadline) }
        return nil
    }

    /// The error of a `stop` (nil: no stop; .some(nil): stopped by the owner).
    var stopped: ClientError?? {
        for case .stop(let error) in self { return .some(error) }
        return nil
    }

    /// Whether the connection is to be closed.
    var closes: Bool { contains { if case .close = $0 { true } else { false } } }

    /// Whether the journal is to be written.
    var persists: Bool { contains { if case .persist = $0 { true } else { false } } }

    /// The outcomes resolved, by mut.
    var outcomes: [UInt64: OpOutcome] {
        var result: [UInt64: OpOutcome] = [:]
        for case .resolve(.op(let mut, let outcome)) in self { result[mut] = outcome }
        return result
    }

    /// The board updates emitted.
    var updates: [BoardUpdate] {
        events.compactMap { if case .board(let update) = $0 { update } else { nil } }
    }
}
