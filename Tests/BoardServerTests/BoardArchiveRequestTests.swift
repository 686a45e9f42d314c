import BoardTesting
import Foundation
import Testing

/// `board.archive` (Protocol.md, "board.archive"): the board's owner archives it through the admin queue; every
/// subscriber is told it is gone, a member who is not an owner gets `forbidden`, anyone else `not_found`.
@Suite(.timeLimit(.minutes(2))) struct BoardArchiveRequestTests {
    @Test func theOwnerArchivesTheBoardAndItsSubscribersAreTold() async throws {
        try await withTestServer { server in
            let owner = try await server.connect()
            try await owner.send(#"{"type":"board.create","req":"c","board":"other","name":"Other"}"#)
            _ = try await owner.expect(type: "ok")
            let editor = try await server.invite("bob", role: .editor)
            let outsider = try await server.invite("carol", role: .editor, board: "other")
            let bob = try await server.connect(token: editor)
            try await Self.subscribe(bob, "main")

            try await bob.send(#"{"type":"board.archive","req":"b","board":"main"}"#)
            let forbidden = try await bob.expect(type: "error")
            #expect(forbidden["code"] as? String == "forbidden" && forbidden["req"] as? String == "b", "\(forbidden)")
            let carol = try await server.connect(token: outsider)
            try await Self.subscribe(carol, "other")
            try await carol.send(#"{"type":"board.archive","req":"x","board":"main"}"#)
            let hidden = try await carol.expect(type: "error")
            #expect(hidden["code"] as? String == "not_found" && hidden["req"] as? String == "x", "\(hidden)")

            try await owner.send(#"{"type":"board.archive","req":"a","board":"main"}"#)
            let ok = try await owner.expect(type: "ok", skipping: ["presence", "presence.state", "ping"])
            #expect(ok["req"] as? String == "a" && ok["board"] as? String == "main", "\(ok)")
            let gone = try await bob.expect(type: "error", skipping: ["presence", "presence.state", "presence.left", "ping"])
            #expect(gone["code"] as? String == "not_found" && gone["board"] as? String == "main", "\(gone)")
            try await owner.send(#"{"type":"subscribe","req":"s","board":"main"}"#)
            #expect(try await owner.expect(type: "error")["code"] as? String == "not_found")
            // The other board is untouched.
            try await owner.send(#"{"type":"subscribe","req":"t","board":"other"}"#)
            _ = try await owner.expect(type: "subscribed", skipping: ["snapshot", "presence", "presence.state", "ping"])
            for probe in [owner, bob, carol] { await probe.close() }
        }
    }

    /// Subscribes once the membership (applied through the admin queue) has taken effect: at most 30 s.
    static func subscribe(_ probe: WireProbe, _ board: String) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            try await probe.send(#"{"type":"subscribe","board":"\#(board)"}"#)
            reading: while true {
                guard let object = try await probe.nextObject() else { throw TestFailure("closed while subscribing") }
                switch object["type"] as? String {
                case "subscribed": return
                case "error": break reading
                default: continue
                }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestFailure("never subscribed to \(board)")
    }
}
