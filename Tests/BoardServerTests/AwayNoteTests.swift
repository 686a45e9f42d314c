import BoardTesting
import BoardCore
import BoardWire
import Foundation
import Testing

/// `presence` with `away_note` (Protocol.md, "presence"): what a person says about being away reaches the others
/// while they are away, and a note that is not one short line is refused.
@Suite(.timeLimit(.minutes(2))) struct AwayNoteTests {
    @Test func anAwayNoteReachesTheOthersOnlyWithAway() async throws {
        try await withTestServer { server in
            let alice = try await server.presentSubscriber("alice-away")
            let bob = try await server.presentSubscriber("bob-away")
            _ = try await alice.expect(type: "presence", skipping: ["ping"])

            try await bob.send(#"{"type":"presence","board":"main","state":"viewing","away":true,"away_note":"lunch, back at 2 🍜"}"#)
            let away = try await alice.expect(type: "presence", skipping: ["ping"])
            #expect(away["away"] as? Bool == true && away["away_note"] as? String == "lunch, back at 2 🍜", "\(away)")
            // Back: no note goes with it, even one sent.
            try await bob.send(#"{"type":"presence","board":"main","state":"viewing","away":false,"away_note":"stale"}"#)
            let back = try await alice.expect(type: "presence", skipping: ["ping"])
            #expect(back["away"] as? Bool == false && back["away_note"] == nil, "\(back)")
            // A note of more than a line, or with a control character, is refused.
            let long = String(repeating: "x", count: 81)
            for note in [long, #"two\nlines"#, #"bell\u0007"#] {
                try await bob.send(#"{"type":"presence","board":"main","state":"viewing","away":true,"away_note":"\#(note)"}"#)
                let refused = try await bob.expect(type: "error", skipping: ["ping", "presence"])
                #expect(refused["code"] as? String == "bad_request", "\(refused)")
                #expect((refused["message"] as? String)?.contains("away_note") == true, "\(refused)")
            }
            await bob.close()
            await alice.close()
        }
    }
}
