import BoardTesting
import BoardCore
import BoardServer
import BoardWire
import Foundation
import Testing

/// RELIABILITY.md M4 ("timers still fire"): every duration the server measures follows monotonic time, so a wall
/// clock set back or forward an hour changes nothing about rate limits, runs of rate limiting, presence timeouts,
/// the error budget or the login throttle. The clock is a `ManualClock`: `advance(by:)` is time passing,
/// `jumpWall(by:)` is the wall clock being set (monotonic time does not move).
@Suite(.timeLimit(.minutes(3))) struct ClockJumpTests {
    static let hour: Int64 = 3_600_000
    static let jumps: [Int64] = [-hour, hour]

    /// The token bucket: a jump grants nothing (+1 h) and takes nothing away (−1 h); a second of monotonic time
    /// grants a second's worth of tokens (20) either way.
    @Test(arguments: jumps) func aTokenBucketFollowsMonotonicTime(jump: Int64) async throws {
        let clock = ManualClock()
        try await withTestServer(clock: clock) { server in
            let probe = try await server.connect(clientID: "bucket")
            let full = try await RateCloseTests.burst(probe, from: 1, count: 41)
            #expect(full.acks == 40 && full.limited == 1, "the burst is 40: \(full)")
            clock.jumpWall(by: jump)
            let jumped = try await RateCloseTests.burst(probe, from: 42, count: 1)
            #expect(jumped.acks == 0 && jumped.limited == 1, "a wall-clock jump of \(jump) ms granted tokens: \(jumped)")
            clock.advance(by: 1_000)
            let refilled = try await RateCloseTests.burst(probe, from: 43, count: 21)
            #expect(refilled.acks == 20 && refilled.limited == 1, "one second at 20/s after a jump of \(jump) ms: \(refilled)")
            await probe.close()
        }
    }

    /// A run of rate limiting closes the connection after `rate_close_ms` (10 s) of monotonic time, whatever the
    /// wall clock did 2 s into it (on the wall clock, −1 h would never close it; +1 h would refill the bucket and begin
    /// the run again).
    @Test(arguments: jumps) func aRunOfRateLimitingClosesAfterRateCloseMsOfMonotonicTime(jump: Int64) async throws {
        let clock = ManualClock()
        try await withTestServer(clock: clock) { server in
            let probe = try await server.connect(clientID: "flood")
            var mut = 1
            var elapsed: Int64 = 0
            var closing: [String: Any]?
            while elapsed <= 18_000 {
                let result = try await RateCloseTests.burst(probe, from: mut, count: 15)
                mut += 15
                if let error = result.closing {
                    closing = error
                    break
                }
                if elapsed == 2_000 { clock.jumpWall(by: jump) }
                clock.advance(by: 50)
                elapsed += 50
            }
            let error = try #require(closing, "still open after 18 s of 300 ops/s with a wall-clock jump of \(jump) ms")
            #expect(error["code"] as? String == "too_many_errors")
            #expect(elapsed >= 10_000 && elapsed <= 10_500, "closed at \(elapsed) ms after a jump of \(jump) ms")
            _ = try await probe.expectClose()
        }
    }

    /// Subscribes `clientID` to `main` with presence.
    static func present(_ server: TestServer, _ clientID: String) async throws -> WireProbe {
        let probe = try await server.connect(clientID: clientID)
        try await probe.send(#"{"type":"subscribe","board":"main"}"#)
        _ = try await probe.expect(type: "subscribed", skipping: ["snapshot", "presence", "presence.state", "ping"])
        return probe
    }

    /// Reads `presence` lines until one says `state` (the dragger's join, as viewing, may come first).
    static func presence(_ probe: WireProbe, until state: String) async throws -> [String: Any] {
        while true {
            let presence = try await probe.expect(type: "presence", skipping: ["presence.state", "ping"])
            if presence["state"] as? String == state { return presence }
        }
    }

    /// A drag not refreshed for `presence_timeout_ms` of monotonic time resets to viewing although the wall clock
    /// was set back an hour (on the wall clock: not for an hour).
    @Test func aDragExpiresAfterTheTimeoutEvenWhenTheWallClockWasSetBack() async throws {
        let clock = ManualClock()
        try await withTestServer(clock: clock, configure: { $0.limits.presenceTimeoutMs = 1_000 }) { server in
            let watcher = try await Self.present(server, "watcher")
            let dragger = try await Self.present(server, "dragger")
            try await dragger.send(#"{"type":"presence","board":"main","state":"dragging","column":"doing","index":0}"#)
            let dragging = try await Self.presence(watcher, until: "dragging")
            clock.jumpWall(by: -Self.hour)
            clock.advance(by: 1_000)
            // The sweep runs every 500 ms of real time; the probe waits at most 10 s.
            let reset = try await Self.presence(watcher, until: "viewing")
            #expect("\(reset["session"] ?? "")" == "\(dragging["session"] ?? "-")")
            // The dragger is not told about its own session (Protocol.md, "presence"): before the pong to its ping
            // comes no `presence` line (the one about itself was sent to it too, found by a client written from the
            // document alone).
            try await dragger.send(#"{"type":"ping"}"#)
            _ = try await dragger.expect(type: "pong", skipping: ["presence.state", "ping"])
            await dragger.close()
            await watcher.close()
        }
    }

    /// A wall clock set forward an hour does not expire a drag that was refreshed no time ago (on the wall clock: the
    /// next sweep would reset it).
    @Test func aDragDoesNotExpireWhenTheWallClockJumpsForward() async throws {
        let clock = ManualClock()
        try await withTestServer(clock: clock, configure: { $0.limits.presenceTimeoutMs = 1_000 }) { server in
            let watcher = try await Self.present(server, "watcher")
            let dragger = try await Self.present(server, "dragger")
            try await dragger.send(#"{"type":"presence","board":"main","state":"dragging","column":"doing","index":0}"#)
            _ = try await Self.presence(watcher, until: "dragging")
            clock.jumpWall(by: Self.hour)
            // Long enough for at least two presence sweeps (every 500 ms of real time).
            try await Task.sleep(for: .milliseconds(1_300))
            try await dragger.send(#"{"type":"presence","board":"main","state":"editing","card":"k"}"#)
            let next = try await watcher.expect(type: "presence", skipping: ["presence.state", "ping"])
            #expect(next["state"] as? String == "editing", "the drag was reset by a wall-clock jump: \(next)")
            await dragger.close()
            await watcher.close()
        }
    }

    /// Sends `count` lines that are not JSON and returns the error of the last one.
    static func badLines(_ probe: WireProbe, count: Int) async throws -> [String: Any] {
        var last: [String: Any] = [:]
        for _ in 0..<count {
            try await probe.send("{not json")
            last = try await probe.expect(type: "error")
        }
        return last
    }

    /// The error budget (20 bad lines in 60 s): +1 h of wall clock forgives nothing (a wall-clock window would forget
    /// every bad line); −1 h followed by 60 s of monotonic time forgets them (a wall-clock window would keep them for
    /// an hour).
    @Test(arguments: jumps) func theErrorBudgetWindowIsMonotonic(jump: Int64) async throws {
        let clock = ManualClock()
        try await withTestServer(clock: clock) { server in
            let probe = try await server.connect(clientID: "sloppy")
            let twentieth = try await Self.badLines(probe, count: 20)
            #expect(twentieth["code"] as? String == "bad_json")
            clock.jumpWall(by: jump)
            if jump > 0 {
                let over = try await Self.badLines(probe, count: 1)
                #expect(over["code"] as? String == "too_many_errors", "\(over)")
                _ = try await probe.expectClose()
            } else {
                clock.advance(by: 60_000)
                let fresh = try await Self.badLines(probe, count: 1)
                #expect(fresh["code"] as? String == "bad_json", "60 s passed; the old bad lines are forgotten: \(fresh)")
                try await probe.send(#"{"type":"ping","req":"open"}"#)
                #expect(try await probe.expect(type: "pong")["req"] as? String == "open")
                await probe.close()
            }
        }
    }

    /// Fails one login from 127.0.0.1 with a wrong token.
    static func failLogin(_ server: TestServer) async throws {
        let probe = try await server.connect(hello: false)
        try await probe.send(#"{"type":"hello","version":1,"client":"t","token":"ck_wrong"}"#)
        let lines = try await probe.expectClose()
        #expect(lines.first?.contains(#""code":"auth_failed""#) == true)
    }

    /// The login throttle (more than 10 failures a minute from one address → answered 1 s late) counts its minute
    /// in monotonic time: +1 h of wall clock does not forgive the failures, −1 h plus a minute does.
    @Test(arguments: jumps) func theLoginThrottleWindowIsMonotonic(jump: Int64) async throws {
        let clock = ManualClock()
        let metrics = ServerMetrics()
        try await withTestServer(clock: clock, configure: { $0.metrics = metrics }) { server in
            for _ in 0..<10 { try await Self.failLogin(server) }
            #expect(metrics.value(of: "corkd_login_delays_total") == 0)
            clock.jumpWall(by: jump)
            if jump < 0 { clock.advance(by: 61_000) }
            try await Self.failLogin(server)
            let delayed = metrics.value(of: "corkd_login_delays_total")
            #expect(delayed == (jump > 0 ? 1 : 0), "after a jump of \(jump) ms: \(String(describing: delayed)) delayed")
        }
    }
}
