import BoardTesting
import BoardCore
import BoardWire
import Foundation
import Testing

/// Requests answered the way Protocol.md says, for boards that are missing, hidden or not subscribed. Each test
/// asserts the reply code and that the connection stays open.
@Suite(.timeLimit(.minutes(2))) struct RequestErrorTests {
    static let catchUp: Set<String> = ["snapshot", "presence", "presence.state", "presence.left", "delta", "ping"]

    /// Proves the connection still answers.
    static func expectOpen(_ probe: WireProbe) async throws {
        try await probe.send(#"{"type":"ping","req":"open"}"#)
        #expect(try await probe.expect(type: "pong", skipping: catchUp)["req"] as? String == "open")
    }

    @Test func anOpOnAMissingOrHiddenBoardIsRejectedNotFound() async throws {
        try await withTestServer { server in
            let token = try await server.invite("eve", board: "other")
            let eve = try await server.connect(token: token)
            for (mut, board) in [(1, "nope"), (2, "main")] {
                try await eve.send(#"{"type":"op","board":"\#(board)","mut":\#(mut),"op":{"kind":"card.add","card":"x","title":"t"}}"#)
                let reject = try await eve.expect(type: "reject")
                #expect(reject["code"] as? String == "not_found", "\(board)")
                #expect(reject["board"] as? String == board)
                #expect(reject["mut"] as? Int == mut)
            }
            try await Self.expectOpen(eve)
            await eve.close()
        }
    }
}
