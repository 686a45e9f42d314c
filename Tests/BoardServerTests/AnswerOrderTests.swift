import BoardTesting
import Foundation
import Testing

/// Protocol.md, "op", "Durability and order": a client that sends several ops to a board reads their answers in the
/// order it sent them, refusals on the board's rules and no-op acks included (tier 2: the real server over TLS).
@Suite(.timeLimit(.minutes(2))) struct AnswerOrderTests {
    @Test func refusalsAndNoOpsDoNotOvertakeTheAcksOfEarlierOps() async throws {
        try await withTestServer { server in
            let owner = try await server.connect()
            try await owner.send(#"{"type":"subscribe","board":"main","presence":false}"#)
            _ = try await owner.expect(type: "subscribed", skipping: ["snapshot", "presence", "presence.state", "ping"])
            for round in 0..<5 {
                let base = 100 * (round + 1)
                // In one write: a change, a refusal (no such card), a value out of range, a change, a no-op.
                let lines = [
                    #"{"type":"op","board":"main","mut":\#(base + 1),"op":{"kind":"card.add","card":"c\#(round)","column":"todo","title":"Card \#(round)"}}"#,
                    #"{"type":"op","board":"main","mut":\#(base + 2),"op":{"kind":"card.edit","card":"nope","title":"x"}}"#,
                    #"{"type":"op","board":"main","mut":\#(base + 3),"op":{"kind":"label.create","label":"l\#(round)","name":"x","color":"red"}}"#,
                    #"{"type":"op","board":"main","mut":\#(base + 4),"op":{"kind":"card.close","card":"c\#(round)"}}"#,
                    #"{"type":"op","board":"main","mut":\#(base + 5),"op":{"kind":"card.close","card":"c\#(round)"}}"#,
                    #"{"type":"op","board":"main","mut":\#(base + 6),"op":{"kind":"chat","text":"after \#(round)"}}"#,
                ]
                try await owner.sendRaw(Array(lines.map { $0 + "\n" }.joined().utf8))
                var answers: [String] = []
                while answers.count < lines.count {
                    guard let object = try await owner.nextObject() else { throw TestFailure("closed") }
                    guard let type = object["type"] as? String, type == "ack" || type == "reject" else { continue }
                    let mut = (object["mut"] as? Int ?? 0) - base
                    answers.append("\(type) \(mut)")
                }
                #expect(
                    answers == ["ack 1", "reject 2", "reject 3", "ack 4", "ack 5", "ack 6"],
                    "round \(round): answers in the order \(answers)")
            }
            await owner.close()
        }
    }
}
