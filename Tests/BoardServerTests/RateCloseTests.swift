import BoardTesting
import BoardCore
import BoardWire
import Foundation
import NIOCore
import Testing

/// `rate_close_ms` (Protocol.md, "Limits"): a connection rate limited without a break of a second or more for
/// `rate_close_ms` is closed with `too_many_errors`; accepted ops in between do not reset it. A client at or under
/// the rate, or over it briefly, is never closed. Time is a manual clock, so nothing here sleeps.
@Suite(.timeLimit(.minutes(3))) struct RateCloseTests {
    /// Sends `count` chat ops starting at `mut` and reads their answers; nil when the server closed the connection
    /// (then the closing error is returned in `closing`).
    static func burst(
        _ probe: WireProbe, from mut: Int, count: Int
    ) async throws -> (acks: Int, limited: Int, closing: [String: Any]?) {
        var lines = ""
        for m in mut..<(mut + count) { lines += #"{"type":"op","board":"main","mut":\#(m),"op":{"kind":"chat","text":"\#(m)"}}"# + "\n" }
        try? await probe.sendRaw(Array(lines.utf8))
        var acks = 0
        var limited = 0
        while acks + limited < count {
            guard let object = try await probe.nextObject() else { return (acks, limited, [:]) }
            switch object["type"] as? String {
            case "ack": acks += 1
            case "reject":
                #expect(object["code"] as? String == "rate_limited", "\(object)")
                limited += 1
            case "error": return (acks, limited, object)
            default: break
            }
        }
        return (acks, limited, nil)
    }

    @Test func continuousOverRateIsClosedAfterRateCloseMsEvenThoughSomeOpsGetThrough() async throws {
        let clock = ManualClock()
        try await withTestServer(clock: clock) { server in
            let probe = try await server.connect(clientID: "flood")
            // About 300 ops/s (15 every 50 ms) for up to 18 s; the rate is 20/s with a burst of 40.
            var mut = 1
            var elapsed: Int64 = 0
            var closing: [String: Any]?
            var accepted = 0
            while elapsed <= 18_000 {
                let result = try await Self.burst(probe, from: mut, count: 15)
                accepted += result.acks
                mut += 15
                if let error = result.closing {
                    closing = error
                    break
                }
                clock.advance(by: 50)
                elapsed += 50
            }
            let error = try #require(closing, "still open after 18 s of 300 ops/s (\(accepted) accepted)")
            #expect(error["code"] as? String == "too_many_errors")
            #expect(error["close"] as? Bool == true)
            // Closed once the run of rate limiting reached 10 s (it began within the first 150 ms).
            #expect(elapsed >= 10_000 && elapsed <= 10_500, "closed at \(elapsed) ms")
            #expect(accepted > 40, "ops kept getting through at the refill rate")
            _ = try await probe.expectClose()
        }
    }

    /// A flooder that pipelines ops without waiting for their answers is closed once it has been rate limited for
    /// `rate_close_ms`, not rejected forever. The flood is a fixed number of lines written at once, and the server's
    /// clock moves a millisecond each time it is read (at least once per op), so the flood spans seconds of the
    /// server's time however fast or loaded the machine is.
    @Test func aFlooderPipeliningWithoutWaitingIsClosed() async throws {
        let total = 4_000
        try await withTestServer(clock: SteppingClock(stepMs: 1), configure: { $0.limits.rateCloseMs = 1_000 }) { server in
            let probe = try await server.connect(clientID: "flooder")
            let channel = probe.channel.channel
            let outcome = try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask {
                    // 200 lines a write, never waiting for an answer; a write fails once the server has closed.
                    for first in stride(from: 1, through: total, by: 200) {
                        var lines = ""
                        for mut in first..<min(first + 200, total + 1) {
                            lines += #"{"type":"op","board":"main","mut":\#(mut),"op":{"kind":"chat","text":"flood"}}"# + "\n"
                        }
                        do { try await channel.writeAndFlush(ByteBuffer(string: lines)) } catch { return }
                    }
                }
                var closing: [String: Any]?
                var limited = 0
                var acks = 0
                while let object = try await probe.nextObject() {
                    switch object["type"] as? String {
                    case "error": closing = object
                    case "reject": limited += 1
                    case "ack": acks += 1
                    default: break
                    }
                    if closing != nil || limited + acks == total { break }
                }
                tasks.cancelAll()
                await probe.close()
                return (closing, limited, acks)
            }
            let error = try #require(
                outcome.0,
                "\(total) pipelined ops were all answered (\(outcome.1) rate_limited, \(outcome.2) acks) and the connection was not closed")
            #expect(error["code"] as? String == "too_many_errors", "\(error)")
            #expect(outcome.1 > 0, "it was rate limited before it was closed")
        }
    }

    @Test func atTheRateOrOverItBrieflyIsNeverClosed() async throws {
        let clock = ManualClock()
        try await withTestServer(clock: clock) { server in
            let probe = try await server.connect(clientID: "steady")
            // A burst of 60 at once: 40 go through, 20 are limited.
            let first = try await Self.burst(probe, from: 1, count: 60)
            #expect(first.acks == 40 && first.limited == 20)
            // Then 10 ops/s for 15 s: never limited, never closed.
            var mut = 61
            for _ in 0..<150 {
                clock.advance(by: 100)
                let result = try await Self.burst(probe, from: mut, count: 1)
                #expect(result.closing == nil)
                #expect(result.acks == 1)
                mut += 1
            }
            // A second brief excess, well after the first: limited, not closed.
            let again = try await Self.burst(probe, from: mut, count: 60)
            #expect(again.closing == nil)
            #expect(again.limited > 0)
            try await probe.send(#"{"type":"ping","req":"open"}"#)
            #expect(try await probe.expect(type: "pong")["req"] as? String == "open")
            await probe.close()
        }
    }

    /// While the session refuses ops itself because its bucket is known to be empty (`EmptyBuckets`), a resend of an
    /// applied op still reaches the board and gets its original `ack`; a new op gets `rate_limited`.
    @Test func aResendOfAnAppliedOpIsAckedWhileTheBucketIsKnownEmpty() async throws {
        let clock = ManualClock()
        try await withTestServer(clock: clock) { server in
            let probe = try await server.connect(clientID: "limited")
            let first = try await Self.burst(probe, from: 1, count: 42)
            #expect(first.acks == 40 && first.limited == 2)
            // The clock stands still: the bucket stays empty, and the session knows it.
            try await probe.send(#"{"type":"op","board":"main","mut":5,"op":{"kind":"chat","text":"5"}}"#)
            let ack = try await probe.expect(type: "ack", skipping: ["delta", "ping"])
            #expect(ack["mut"] as? Int == 5 && ack["seq"] as? Int != nil, "\(ack)")
            try await probe.send(#"{"type":"op","board":"main","mut":41,"op":{"kind":"chat","text":"41"}}"#)
            let reject = try await probe.expect(type: "reject", skipping: ["delta", "ping"])
            #expect(reject["code"] as? String == "rate_limited" && reject["mut"] as? Int == 41, "\(reject)")
            #expect((reject["retry_after_ms"] as? Int ?? 0) > 0, "\(reject)")
            await probe.close()
        }
    }
}
