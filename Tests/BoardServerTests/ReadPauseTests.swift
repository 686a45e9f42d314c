import BoardCore
import BoardServer
import BoardTesting
import Synchronization
import Testing

/// After answering `rate_limited`, a session reads nothing from its connection for the rest of the bucket's wait
/// (at most 250 ms): a flooder's lines wait in TCP buffers and its writes block, instead of taking the event loops
/// from everyone else (Protocol.md, "Rate limit"). Nothing is dropped: every op is still answered.
@Suite(.timeLimit(.minutes(2))) struct ReadPauseTests {
    /// A clock whose time moves only by the server's own pauses: what the server waited is exactly what it read.
    final class PausingClock: ServerClock {
        private let monotonic = Mutex<Int64>(5_000_000)
        private let pauses = Mutex<[Int64]>([])
        func now() -> Timestamp { Timestamp(milliseconds: 1_795_000_000_000) }
        func monotonicMs() -> Int64 { monotonic.withLock { $0 } }
        func pause(milliseconds: Int64) async {
            pauses.withLock { $0.append(milliseconds) }
            monotonic.withLock { $0 += milliseconds }
        }
        var paused: [Int64] { pauses.withLock { $0 } }
    }

    @Test func linesAfterARateLimitedOpAreReadOnlyAfterThePause() async throws {
        let clock = PausingClock()
        // One op a second, a burst of one: the bucket refills only as the server pauses.
        try await withTestServer(clock: clock, configure: { $0.limits.rateOpsPerS = 1; $0.limits.rateBurst = 1 }) { server in
            let probe = try await server.connect(clientID: "pause")
            // Three ops in one write: the first takes the token, the second finds the bucket empty (1,000 ms to
            // wait), and the third is read only after a pause of 250 ms, so it has 750 ms left to wait.
            var lines = ""
            for mut in 1...3 { lines += #"{"type":"op","board":"main","mut":\#(mut),"op":{"kind":"chat","text":"\#(mut)"}}"# + "\n" }
            try await probe.sendRaw(Array(lines.utf8))
            // Answers by mut (a reject may overtake the ack, which waits for the commit).
            var answers: [Int: [String: Any]] = [:]
            while answers.count < 3 {
                let answer = try #require(try await probe.nextObject(), "closed after \(answers.count) answers")
                guard let mut = answer["mut"] as? Int else { continue }
                answers[mut] = answer
            }
            #expect(answers[1]?["type"] as? String == "ack")
            #expect(answers[2]?["code"] as? String == "rate_limited")
            #expect(answers[2]?["retry_after_ms"] as? Int == 1_000)
            #expect(answers[3]?["code"] as? String == "rate_limited")
            #expect(answers[3]?["retry_after_ms"] as? Int == 750)
            #expect(clock.paused.first == 250)
            await probe.close()
        }
    }
}
