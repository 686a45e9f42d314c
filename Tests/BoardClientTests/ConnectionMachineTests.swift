import BoardClient
import Testing

/// The reconnect state machine, walked with a manual clock: no sockets, no sleeping.
@Suite struct ConnectionMachineTests {
    static let refused = ConnectionMachine.Failure(ClientError(.cannotConnect, "refused"))
    static let policy = ReconnectPolicy(initial: .milliseconds(100), maximum: .seconds(2), multiplier: 2, jitter: 0.5)

    @Test func backoffDoublesUpToTheCapWithJitterInsideItsBand() {
        #expect(Self.policy.delay(round: 0, random: 0) == .milliseconds(100))
        #expect(Self.policy.delay(round: 0, random: 1) == .milliseconds(50))
        #expect(Self.policy.delay(round: 3, random: 0) == .milliseconds(800))
        #expect(Self.policy.delay(round: 10, random: 0) == .seconds(2))
        #expect(Self.policy.delay(round: 10, random: 0.5) == .milliseconds(1500))
    }

    @Test func aSingleEndpointBacksOffAfterEachFailureAndResetsOnWelcome() {
        var machine = ConnectionMachine(endpointCount: 1, policy: Self.policy)
        machine.nextRandom = 0
        #expect(machine.start() == .connect(endpoint: 0))
        var now = Duration.zero
        #expect(machine.connectFailed(Self.refused, now: now) == .wait(delay: .milliseconds(100)))
        // The timer is early: nothing happens.
        #expect(machine.timerFired(now: now + .milliseconds(99)) == .none)
        now += .milliseconds(100)
        #expect(machine.timerFired(now: now) == .connect(endpoint: 0))
        #expect(machine.connectFailed(Self.refused, now: now) == .wait(delay: .milliseconds(200)))
        now += .milliseconds(200)
        #expect(machine.timerFired(now: now) == .connect(endpoint: 0))
        #expect(machine.connectFailed(Self.refused, now: now) == .wait(delay: .milliseconds(400)))
        now += .milliseconds(400)
        #expect(machine.timerFired(now: now) == .connect(endpoint: 0))
        machine.connected()
        machine.welcomed()
        #expect(machine.failedRounds == 0)
        let dropped = ConnectionMachine.Failure(ClientError(.disconnected, "closed"))
        #expect(machine.disconnected(dropped, now: now) == .wait(delay: .milliseconds(100)))
    }

    /// The user asks to reconnect now (`r` in cork): the wait ends early, once, and the backoff goes on from there.
    @Test func retryNowEndsTheWaitEarly() {
        var machine = ConnectionMachine(endpointCount: 1, policy: Self.policy)
        machine.nextRandom = 0
        #expect(machine.retryNow() == .none, "nothing to cut short before the first dial")
        _ = machine.start()
        #expect(machine.retryNow() == .none, "nor while dialling")
        #expect(machine.connectFailed(Self.refused, now: .zero) == .wait(delay: .milliseconds(100)))
        #expect(machine.retryNow() == .connect(endpoint: 0))
        #expect(machine.timerFired(now: .seconds(1)) == .none, "the cut-short wait's timer does nothing")
        #expect(machine.connectFailed(Self.refused, now: .zero) == .wait(delay: .milliseconds(200)))
    }

    @Test func aDownEndpointMovesToTheNextAtOnceThenTheRoundBacksOff() {
        var machine = ConnectionMachine(endpointCount: 3, policy: Self.policy)
        machine.nextRandom = 0
        #expect(machine.start() == .connect(endpoint: 0))
        #expect(machine.connectFailed(Self.refused, now: .zero) == .connect(endpoint: 1))
        #expect(machine.connectFailed(Self.refused, now: .zero) == .connect(endpoint: 2))
        #expect(machine.connectFailed(Self.refused, now: .zero) == .wait(delay: .milliseconds(100)))
        #expect(machine.timerFired(now: .milliseconds(100)) == .connect(endpoint: 0))
        #expect(machine.connectFailed(Self.refused, now: .milliseconds(100)) == .connect(endpoint: 1))
        machine.connected()
        machine.welcomed()
        // A session on endpoint 1 drops: wait, then that endpoint again first.
        let dropped = ConnectionMachine.Failure(ClientError(.disconnected, "closed"))
        #expect(machine.disconnected(dropped, now: .seconds(1)) == .wait(delay: .milliseconds(100)))
        #expect(machine.timerFired(now: .seconds(2)) == .connect(endpoint: 1))
        #expect(machine.connectFailed(Self.refused, now: .seconds(2)) == .connect(endpoint: 2))
    }

    @Test func theServersRetryHintWinsWhenLonger() {
        var machine = ConnectionMachine(endpointCount: 1, policy: Self.policy)
        machine.nextRandom = 0
        _ = machine.start()
        machine.connected()
        let full = ConnectionMachine.Failure(ClientError(.server, "server_full"), retryAfter: .seconds(5))
        #expect(machine.disconnected(full, now: .zero) == .wait(delay: .seconds(5)))
    }

    @Test func aFatalFailureStopsForGood() {
        var machine = ConnectionMachine(endpointCount: 2, policy: Self.policy)
        _ = machine.start()
        let pin = ConnectionMachine.Failure(ClientError(.tls, "pin mismatch"), isFatal: true)
        #expect(machine.connectFailed(pin, now: .zero) == .stop(pin.error))
        #expect(machine.state == .stopped(pin.error))
        #expect(machine.timerFired(now: .seconds(100)) == .none)
    }

    @Test func maxRoundsUntilConnectedFailsFastOnlyBeforeTheFirstWelcome() {
        let policy = ReconnectPolicy(initial: .milliseconds(10), maximum: .milliseconds(10), maxRoundsUntilConnected: 1)
        var never = ConnectionMachine(endpointCount: 1, policy: policy)
        _ = never.start()
        #expect(never.connectFailed(Self.refused, now: .zero) == .stop(Self.refused.error))

        var once = ConnectionMachine(endpointCount: 1, policy: policy)
        _ = once.start()
        once.connected()
        once.welcomed()
        let dropped = ConnectionMachine.Failure(ClientError(.disconnected, "closed"))
        var now = Duration.zero
        guard case .wait = once.disconnected(dropped, now: now) else {
            Issue.record("expected a wait after a drop")
            return
        }
        for _ in 0..<5 {
            now += .seconds(1)
            #expect(once.timerFired(now: now) == .connect(endpoint: 0))
            guard case .wait = once.connectFailed(Self.refused, now: now) else {
                Issue.record("gave up after a welcome")
                return
            }
        }
    }

    @Test func maxRoundsGivesUp() {
        var policy = Self.policy
        policy.maxRounds = 2
        var machine = ConnectionMachine(endpointCount: 1, policy: policy)
        _ = machine.start()
        guard case .wait = machine.connectFailed(Self.refused, now: .zero) else {
            Issue.record("expected a wait")
            return
        }
        _ = machine.timerFired(now: .seconds(10))
        #expect(machine.connectFailed(Self.refused, now: .seconds(10)) == .stop(Self.refused.error))
    }
}
