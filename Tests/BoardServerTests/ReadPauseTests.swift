import BoardTesting
import Testing

/// After answering `rate_limited`, a session reads nothing from its connection for the rest of the bucket's wait
/// (at most 250 ms): a flooder's lines wait in TCP buffers and its writes block, instead of taking the event loops
/// from everyone else (issue 14, defect 2; Protocol.md, "Rate limit"). Nothing is dropped: every op is still answered.
@Suite(.timeLimit(.minutes(2))) struct ReadPauseTests {
    @Test func linesAfterARateLimitedOpAreReadOnlyAfterThePause() async throws {
        // The wall clock (the pause is real time); one op a second, a burst of one.
        try await withTestServer(configure: { $0.limits.rateOpsPerS = 1; $0.limits.rateBurst = 1 }) { server in
            let probe = try await server.connect(clientID: "pause")
            // Three ops in one write: the first takes the token, the second finds the bucket empty (about 1,000 ms
            // to wait), and the third is read only after the pause, so its wait is shorter by the pause.
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
            let second = try #require(answers[2])
            let third = try #require(answers[3])
            #expect(second["code"] as? String == "rate_limited")
            #expect(third["code"] as? String == "rate_limited")
            let secondWait = try #require(second["retry_after_ms"] as? Int)
            let thirdWait = try #require(third["retry_after_ms"] as? Int)
            // Read without a pause, the third would wait within a few ms of the second.
            #expect(secondWait - thirdWait >= 200, "second waits \(secondWait) ms, third \(thirdWait) ms")
            await probe.close()
        }
    }
}
