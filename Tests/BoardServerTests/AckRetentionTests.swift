import BoardTesting
import BoardCore
import BoardWire
import Foundation
import Testing

/// How long acks are kept for resends (Protocol.md, "op", "Exactly once"): as long as the board. A resend of an
/// applied op gets its original ack however far the retained log has moved on; a mut that was never applied is
/// evaluated again, whatever came since; `stale_mut` only answers a mut that was applied on another board.
@Suite(.timeLimit(.minutes(2))) struct AckRetentionTests {
    static func op(_ mut: Int, _ op: String) -> String { #"{"type":"op","board":"main","mut":\#(mut),"op":\#(op)}"# }

    @Test func anAppliedOpResentFarBeyondTheRetainedLogGetsItsOriginalAck() async throws {
        try await withTestServer(configure: { $0.limits.historyMax = 3 }) { server in
            let client = try await server.connect(clientID: "laptop")
            try await client.send(Self.op(1, #"{"kind":"card.add","card":"k1","title":"once"}"#))
            let first = try #require(try await client.expect(type: "ack")["seq"] as? Int)
            await client.close()
            // Many changes later (history_max is 3), from another client.
            let other = try await server.connect(clientID: "desk")
            for mut in 1...10 {
                try await other.send(Self.op(mut, #"{"kind":"chat","text":"\#(mut)"}"#))
                _ = try await other.expect(type: "ack")
            }
            await other.close()
            // The laptop reconnects and resends: its original ack, nothing applied twice.
            let again = try await server.connect(clientID: "laptop")
            try await again.send(Self.op(1, #"{"kind":"card.add","card":"k1","title":"once"}"#))
            let ack = try await again.expect(type: "ack")
            #expect(ack["seq"] as? Int == first)
            #expect(ack["noop"] == nil)
            await again.close()
        }
    }

    @Test func aMutThatWasNotAppliedIsEvaluatedAgainEvenAfterAHigherOneWasApplied() async throws {
        try await withTestServer { server in
            let client = try await server.connect(clientID: "bot")
            // mut 1 is rejected (no such card) and not remembered: sent again after the card exists, it applies.
            try await client.send(Self.op(1, #"{"kind":"card.close","card":"k1"}"#))
            #expect(try await client.expect(type: "reject")["code"] as? String == "not_found")
            let other = try await server.connect(clientID: "other")
            try await other.send(Self.op(1, #"{"kind":"card.add","card":"k1","title":"t"}"#))
            _ = try await other.expect(type: "ack")
            try await client.send(Self.op(1, #"{"kind":"card.close","card":"k1"}"#))
            #expect(try await client.expect(type: "ack")["mut"] as? Int == 1)
            // mut 2 is rejected, then mut 3 applied: mut 2 was never applied, so it is evaluated again, and applies.
            try await client.send(Self.op(2, #"{"kind":"card.close","card":"k9"}"#))
            #expect(try await client.expect(type: "reject")["code"] as? String == "not_found")
            try await client.send(Self.op(3, #"{"kind":"chat","text":"three"}"#))
            let three = try #require(try await client.expect(type: "ack")["seq"] as? Int)
            try await client.send(Self.op(2, #"{"kind":"chat","text":"two, late"}"#))
            let late = try await client.expect(type: "ack")
            #expect(late["mut"] as? Int == 2 && late["seq"] as? Int == three + 1, "\(late)")
            // Sent once more, it is not applied twice: its original ack.
            try await client.send(Self.op(2, #"{"kind":"chat","text":"two, late"}"#))
            #expect(try await client.expect(type: "ack")["seq"] as? Int == three + 1)
            await other.close()
            await client.close()
        }
    }

    /// One counter across two boards. An op on one board must never be refused because a higher mut of the same
    /// client was applied on the other (a single mark per client would refuse it).
    @Test func oneCounterOnTwoBoardsLosesNothing() async throws {
        try await withTestServer { server in
            let client = try await server.connect(clientID: "two-boards")
            try await client.send(#"{"type":"board.create","req":1,"board":"second","name":"Second"}"#)
            _ = try await client.expect(type: "ok")
            // mut 2 reaches its board first (mut 1 was still on its way, or lost with a connection).
            try await client.send(#"{"type":"op","board":"second","mut":2,"op":{"kind":"chat","text":"two"}}"#)
            _ = try await client.expect(type: "ack")
            try await client.send(Self.op(1, #"{"kind":"chat","text":"one"}"#))
            let one = try await client.expect(type: "ack")
            #expect(one["board"] as? String == "main" && one["mut"] as? Int == 1 && one["noop"] == nil, "\(one)")
            // mut 1 now applied on main: the same mut on the other board is refused, saying where it was applied.
            try await client.send(#"{"type":"op","board":"second","mut":1,"op":{"kind":"chat","text":"one again"}}"#)
            let stale = try await client.expect(type: "reject")
            #expect(stale["code"] as? String == "stale_mut")
            #expect((stale["message"] as? String)?.contains("main") == true, "\(stale)")
            await client.close()
        }
    }

    /// A mut first applied on one board, then sent to another board where it is above everything the client applied
    /// there: the store's unique mutation index refuses the commit. That must be `stale_mut` naming the first board
    /// (the client's fault, not retried), not `internal` (retryable: a client following Protocol.md resent it for
    /// ever; found by a client written from the document alone).
    @Test func aMutReusedOnAnotherBoardIsStaleNotInternal() async throws {
        try await withTestServer { server in
            let client = try await server.connect(clientID: "reuser")
            try await client.send(#"{"type":"board.create","req":1,"board":"other","name":"Other"}"#)
            _ = try await client.expect(type: "ok")
            try await client.send(#"{"type":"op","board":"other","mut":1,"op":{"kind":"chat","text":"on other"}}"#)
            _ = try await client.expect(type: "ack")
            try await client.send(Self.op(1, #"{"kind":"chat","text":"on main"}"#))
            let stale = try await client.expect(type: "reject")
            #expect(stale["code"] as? String == "stale_mut", "\(stale)")
            #expect(stale["board"] as? String == "main" && stale["mut"] as? Int == 1, "\(stale)")
            #expect((stale["message"] as? String)?.contains("board other") == true, "\(stale)")
            #expect((stale["message"] as? String)?.contains("reuser") == false, "no internal names: \(stale)")
            // The board goes on: the next mut is applied.
            try await client.send(Self.op(2, #"{"kind":"chat","text":"two on main"}"#))
            let ack = try await client.expect(type: "ack")
            #expect(ack["mut"] as? Int == 2, "\(ack)")
            await client.close()
        }
    }
}
