import BoardTesting
import BoardCore
import BoardWire
import Foundation
import Testing

/// Removing a member ends their live subscription at once (Protocol.md, "Security": per-board authorization;
/// RELIABILITY.md A5): an `error` `not_found` for the board, no delta of the removal's batch or later, and
/// `presence.left` for the others. Every check asserts the code and that the connection stays open.
@Suite(.timeLimit(.minutes(2))) struct MemberRemovalTests {
    static let catchUp: Set<String> = ["snapshot", "presence", "presence.state", "presence.left", "delta", "ping"]

    /// Subscribes `probe` to `main` and reads up to `subscribed`.
    static func subscribe(_ probe: WireProbe) async throws {
        try await probe.send(#"{"type":"subscribe","req":"s","board":"main"}"#)
        _ = try await probe.expect(type: "subscribed", skipping: catchUp)
    }

    @Test func aRemovedMemberGetsNotFoundAndNoFurtherDelta() async throws {
        try await withTestServer { server in
            let owner = try await server.connect(clientID: "owner-1")
            try await Self.subscribe(owner)
            let token = try await server.invite("bob")
            _ = try await owner.expect(type: "delta")  // the invite, applied by corkd
            let bob = try await server.connect(token: token, clientID: "bob-1")
            try await Self.subscribe(bob)

            try await owner.send(#"{"type":"op","board":"main","mut":1,"op":{"kind":"member.remove","user":"bob"}}"#)
            _ = try await owner.expect(type: "ack", skipping: Self.catchUp)
            // Bob's subscription ends with not_found for the board; the removal's own delta never reaches him.
            let ended = try await bob.expect(type: "error", skipping: ["presence", "presence.state", "presence.left", "ping"])
            #expect(ended["code"] as? String == "not_found")
            #expect(ended["board"] as? String == "main")
            #expect(ended["close"] == nil)
            // The others see him leave.
            let left = try await owner.expect(type: "presence.left", skipping: ["delta", "presence", "ping"])
            #expect(left["user"] as? String == "bob")

            // A chat committed after the removal is not delivered: the pong to a ping sent after its ack is the next
            // line bob gets (a delta would have been queued before it).
            try await owner.send(#"{"type":"op","board":"main","mut":2,"op":{"kind":"chat","text":"bob is gone"}}"#)
            _ = try await owner.expect(type: "ack", skipping: Self.catchUp)
            try await bob.send(#"{"type":"ping","req":"after"}"#)
            let next = try await bob.expect(type: "pong", skipping: ["ping"])
            #expect(next["req"] as? String == "after")

            // His ops are refused like those of any non-member, and the connection stays open.
            try await bob.send(#"{"type":"op","board":"main","mut":1,"op":{"kind":"chat","text":"still here?"}}"#)
            let reject = try await bob.expect(type: "reject", skipping: ["ping"])
            #expect(reject["code"] as? String == "not_found")
            #expect(reject["mut"] as? Int == 1)
            try await bob.send(#"{"type":"ping","req":"open"}"#)
            #expect(try await bob.expect(type: "pong")["req"] as? String == "open")
            await bob.close()
            await owner.close()
        }
    }

    @Test func aRoleChangeKeepsTheSubscriptionAndARemovalInABatchSendsNoneOfIt() async throws {
        try await withTestServer { server in
            let owner = try await server.connect(clientID: "owner-2")
            try await Self.subscribe(owner)
            let token = try await server.invite("carol", role: .viewer)
            _ = try await owner.expect(type: "delta")
            let carol = try await server.connect(token: token)
            try await Self.subscribe(carol)
            // Her role changes (still a member): nothing ends.
            try await owner.send(#"{"type":"op","board":"main","mut":1,"op":{"kind":"member.set","user":"carol","role":"editor"}}"#)
            _ = try await owner.expect(type: "ack", skipping: Self.catchUp)
            let change = try await carol.expect(type: "delta", skipping: ["presence", "presence.state", "ping"])
            #expect((change["op"] as? [String: Any])?["kind"] as? String == "member.set")
            // Removed in a batch with other changes: none of the batch reaches her.
            try await owner.send(
                #"{"type":"op","board":"main","mut":2,"op":{"kind":"chat","text":"before"}}"#
                    + "\n" + #"{"type":"op","board":"main","mut":3,"op":{"kind":"member.remove","user":"carol"}}"#
                    + "\n" + #"{"type":"op","board":"main","mut":4,"op":{"kind":"chat","text":"after"}}"#)
            for _ in 0..<3 { _ = try await owner.expect(type: "ack", skipping: Self.catchUp) }
            try await carol.send(#"{"type":"ping","req":"p"}"#)
            var kinds: [String] = []
            var texts: [String] = []
            var ended = false
            while true {
                let object = try #require(try await carol.nextObject())
                let type = object["type"] as? String ?? ""
                if type == "pong" { break }
                if type == "delta", let op = object["op"] as? [String: Any] {
                    kinds.append(op["kind"] as? String ?? "?")
                    if let text = op["text"] as? String { texts.append(text) }
                }
                if type == "error" {
                    #expect(object["code"] as? String == "not_found")
                    #expect(object["board"] as? String == "main")
                    ended = true
                }
            }
            #expect(ended)
            // "before" may arrive if it committed in an earlier batch; the removal and "after" never do.
            #expect(!kinds.contains("member.remove"))
            #expect(!texts.contains("after"))
            await carol.close()
            await owner.close()
        }
    }
}
