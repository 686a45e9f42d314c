import BoardTesting
import BoardCore
import BoardWire
import NIOCore
import Testing
@testable import BoardServer

/// The session lifecycle without sockets or clocks (STYLE.md 3, tier 1).
@Suite struct SessionMachineTests {
    func machine(budget: Int = 3, window: Int64 = 60_000) -> SessionMachine {
        SessionMachine(errorBudget: budget, errorWindowMs: window)
    }

    let hello = ClientMessage.Hello(req: 1, version: 1, client: "test", token: "t", clientID: nil)

    @Test func helloAsksForAuthenticationThenOpens() {
        var m = machine()
        #expect(m.received(.hello(hello)) == .authenticate(hello))
        #expect(m.state == .authenticating)
        #expect(m.authenticated(.success("alice")) == SessionMachine.Action.none)
        #expect(m.state == .open(user: "alice"))
        let list = ClientMessage.listBoards(ClientMessage.ListBoards(req: 2))
        #expect(m.received(list) == .handle(list))
    }

    @Test func anythingButHelloPingPongByeBeforeWelcomeCloses() {
        var m = machine()
        let action = m.received(.listBoards(ClientMessage.ListBoards(req: 9)))
        guard case .close(let error) = action else {
            Issue.record("expected close, got \(action)")
            return
        }
        #expect(error.code == .unauthenticated)
        #expect(error.req == 9)
        #expect(m.state == .closed)
        #expect(m.received(.hello(hello)) == SessionMachine.Action.none)
    }

    @Test func pingIsAnsweredBeforeAndAfterAuthentication() {
        var m = machine()
        #expect(m.received(.ping(Heartbeat(req: "p"))) == .reply(.pong(Heartbeat(req: "p"))))
        _ = m.received(.hello(hello))
        _ = m.authenticated(.success("bob"))
        #expect(m.received(.ping(Heartbeat(req: 3))) == .reply(.pong(Heartbeat(req: 3))))
        #expect(m.received(.pong(Heartbeat())) == SessionMachine.Action.none)
    }

    @Test func anUnsupportedVersionKeepsTheConnectionOpenForAnotherHello() {
        var m = machine()
        var old = hello
        old.version = 99
        guard case .reply(.error(let error)) = m.received(.hello(old)) else {
            Issue.record("expected an error reply")
            return
        }
        #expect(error.code == .unsupportedVersion)
        #expect(error.versions == ProtocolVersion.supported)
        #expect(!error.closesConnection)
        #expect(m.state == .awaitingHello)
        #expect(m.received(.hello(hello)) == .authenticate(hello))
    }

    @Test func aFailedTokenCheckCloses() {
        var m = machine()
        _ = m.received(.hello(hello))
        let failure = WireError(.authFailed, "unknown token")
        #expect(m.authenticated(.failure(failure)) == .close(failure))
        #expect(m.state == .closed)
    }

    @Test func aSecondHelloIsABadRequest() {
        var m = machine()
        _ = m.received(.hello(hello))
        _ = m.authenticated(.success("alice"))
        guard case .reply(.error(let error)) = m.received(.hello(hello)) else {
            Issue.record("expected an error reply")
            return
        }
        #expect(error.code == .badRequest)
        #expect(m.state == .open(user: "alice"))
    }

    @Test func byeClosesQuietly() {
        var m = machine()
        #expect(m.received(.bye(Bye(reason: "done"))) == .closeQuietly)
        #expect(m.state == .closed)
    }

    @Test func aBadLineOfAnotherTypeBeforeAuthenticationIsUnauthenticatedAndCloses() {
        for type in [nil, "subscribe", "teleport"] as [String?] {
            var m = machine()
            guard case .close(let error) = m.badLine(WireError(.badJSON, "x", req: 4), type: type, now: 0) else {
                Issue.record("expected close for \(String(describing: type))")
                continue
            }
            #expect(error.code == .unauthenticated)
            #expect(error.req == 4)
            #expect(error.closesConnection)
            #expect(m.state == .closed)
        }
    }

    @Test func aMalformedHelloIsAnsweredAndTheConnectionWaitsForAnother() {
        var m = machine(budget: 2)
        let bad = WireError(.badRequest, "missing field `token`", req: 1)
        #expect(m.badLine(bad, type: "hello", now: 0) == .reply(.error(bad)))
        #expect(m.state == .awaitingHello)
        #expect(m.received(.hello(hello)) == .authenticate(hello))
    }

    @Test func malformedHellosCountAgainstTheErrorBudget() {
        var m = machine(budget: 2)
        let bad = WireError(.badRequest, "missing field `token`")
        for t in [0, 1] as [Int64] { #expect(m.badLine(bad, type: "hello", now: t) == .reply(.error(bad))) }
        guard case .close(let error) = m.badLine(bad, type: "hello", now: 2) else {
            Issue.record("the third bad hello should close")
            return
        }
        #expect(error.code == .tooManyErrors)
    }

    @Test func theErrorBudgetClosesAfterTooManyBadLinesInTheWindow() {
        var m = machine(budget: 3, window: 10_000)
        _ = m.received(.hello(hello))
        _ = m.authenticated(.success("alice"))
        let bad = WireError(.badJSON, "not json")
        for t in [0, 1, 2] as [Int64] {
            #expect(m.badLine(bad, type: nil, now: t) == .reply(.error(bad)))
        }
        guard case .close(let error) = m.badLine(bad, type: nil, now: 3) else {
            Issue.record("the fourth bad line within the window should close")
            return
        }
        #expect(error.code == .tooManyErrors)
        #expect(m.state == .closed)
    }

    @Test func badLinesOutsideTheWindowDoNotCount() {
        var m = machine(budget: 2, window: 1_000)
        _ = m.received(.hello(hello))
        _ = m.authenticated(.success("alice"))
        let bad = WireError(.badJSON, "not json")
        for t in stride(from: 0 as Int64, to: 10_000, by: 600) {
            #expect(m.badLine(bad, type: nil, now: t) == .reply(.error(bad)), "at \(t)")
        }
        #expect(m.state == .open(user: "alice"))
    }
}

@Suite struct RateLimitRunTests {
    @Test func threeHundredOpsASecondAreClosedAfterRateCloseMs() {
        var bucket = TokenBucket(rate: 20, burst: 40, nowMs: 0)
        var run = RateLimitRun(closeAfterMs: 10_000)
        var closedAt: Int64?
        for t in stride(from: 0 as Int64, to: 20_000, by: 3) where bucket.take(nowMs: t) != nil {
            if run.limited(nowMs: t) {
                closedAt = t
                break
            }
        }
        // 40 ops of burst go in the first 120 ms; the run starts then and is never broken.
        #expect(closedAt.map { $0 >= 10_000 && $0 <= 10_200 } == true, "closed at \(String(describing: closedAt))")
    }

    @Test func aRateLimitedOpEveryFewHundredMillisecondsKeepsTheRunGoing() {
        var run = RateLimitRun(closeAfterMs: 10_000)
        for t in stride(from: 0 as Int64, to: 10_000, by: 900) {
            let closes = run.limited(nowMs: t)
            #expect(!closes, "at \(t)")
        }
        let closes = run.limited(nowMs: 10_000)
        #expect(closes)
    }

    @Test func aSecondWithoutRateLimitingEndsTheRun() {
        var run = RateLimitRun(closeAfterMs: 10_000)
        var closed: [Int64] = []
        for t in stride(from: 0 as Int64, to: 9_000, by: 500) where run.limited(nowMs: t) { closed.append(t) }
        // A pause of one second: a new run starts at 9 500 ms, and needs its own 10 s.
        for t in stride(from: 9_500 as Int64, to: 19_500, by: 500) where run.limited(nowMs: t) { closed.append(t) }
        #expect(run.startedMs == 9_500)
        #expect(closed.isEmpty)
        let closes = run.limited(nowMs: 19_500)
        #expect(closes)
    }
}

@Suite struct TokenBucketTests {
    @Test func allowsTheBurstThenTheRate() {
        var bucket = TokenBucket(rate: 20, burst: 40, nowMs: 0)
        for _ in 0..<40 { #expect(bucket.take(nowMs: 0) == nil) }
        let wait = bucket.take(nowMs: 0)
        #expect(wait == 50)  // one token every 50 ms at 20/s
        #expect(bucket.take(nowMs: 49) != nil)
        #expect(bucket.take(nowMs: 50) == nil)
    }

    @Test func acceptedOpsOverTimeFollowTheRate() {
        var bucket = TokenBucket(rate: 20, burst: 40, nowMs: 0)
        var accepted = 0
        for t in stride(from: 0 as Int64, to: 10_000, by: 1) where bucket.take(nowMs: t) == nil { accepted += 1 }
        #expect(accepted == 40 + 200 - 1 || accepted == 40 + 200)  // burst plus 10 s at 20/s
    }

    @Test func aClockGoingBackwardsGrantsNothing() {
        var bucket = TokenBucket(rate: 1, burst: 1, nowMs: 10_000)
        #expect(bucket.take(nowMs: 10_000) == nil)
        #expect(bucket.take(nowMs: 0) != nil)
        #expect(bucket.take(nowMs: 5_000) != nil)
    }
}

@Suite struct DeltaLogTests {
    func entry(_ seq: UInt64) -> DeltaLog.Entry {
        DeltaLog.Entry(
            seq: seq, line: .init(string: "\(seq)\n"),
            activity: Activity(seq: seq, at: Timestamp(milliseconds: 0), actor: "a", kind: "chat"), inverse: nil)
    }

    @Test func keepsTheLastCapacityEntries() {
        var log = DeltaLog(capacity: 3)
        for s in 1...5 as ClosedRange<UInt64> { log.append(entry(s)) }
        #expect(log.firstSeq == 3)
        #expect(log.entry(2) == nil)
        #expect(log.entry(5)?.seq == 5)
        #expect(log.lines(from: 3, to: 5)?.map { String(buffer: $0) } == ["3\n", "4\n", "5\n"])
        #expect(log.lines(from: 2, to: 5) == nil)
        #expect(log.lines(from: 4, to: 6) == nil)
        #expect(log.lines(from: 5, to: 4) == [])
    }

    @Test func keepsAtMostByteCapacityBytesButAlwaysTheNewestEntry() {
        var log = DeltaLog(capacity: 100, byteCapacity: 6)
        for s in 1...5 as ClosedRange<UInt64> { log.append(entry(s)) }
        #expect(log.bytes == 6)
        #expect(log.firstSeq == 3)
        #expect(log.lines(from: 3, to: 5)?.count == 3)
        var tiny = DeltaLog(capacity: 100, byteCapacity: 1)
        tiny.append(entry(1))
        tiny.append(entry(2))
        #expect(tiny.firstSeq == 2)
        #expect(tiny.entry(2) != nil)
    }
}
