import BoardTesting
import BoardCore
import BoardWire
import Foundation
import Testing

/// `subscribe` with `"presence":false` (Protocol.md, "subscribe"): the session gets the board's deltas and everyone's
/// presence but is not present itself, so one-shot commands do not show up as joins and leaves.
@Suite(.timeLimit(.minutes(2))) struct QuietSubscribeTests {
    static let catchUp: Set<String> = ["snapshot", "presence.state", "delta", "ping"]

    @Test func aQuietSubscriberIsNeverAnnounced() async throws {
        try await withTestServer { server in
            let owner = try await server.presentSubscriber("owner-q")

            let quiet = try await server.connect(clientID: "one-shot")
            try await quiet.send(#"{"type":"subscribe","req":1,"board":"main","presence":false}"#)
            _ = try await quiet.expect(type: "snapshot")
            _ = try await quiet.expect(type: "subscribed")
            // It sees who is here, without itself.
            let state = try await quiet.expect(type: "presence.state")
            let users = (state["sessions"] as? [[String: Any]])?.compactMap { $0["session"] as? String } ?? []
            #expect(users.count == 1, "\(state)")
            // Its op comes back as a delta, like any subscriber's.
            try await quiet.send(#"{"type":"op","board":"main","mut":1,"op":{"kind":"card.add","card":"k1","title":"from a script"}}"#)
            _ = try await quiet.expect(type: "ack")
            #expect(try await quiet.expect(type: "delta")["seq"] as? Int == 1)
            // It cannot announce presence: it did not subscribe with it.
            try await quiet.send(#"{"type":"presence","board":"main","state":"viewing"}"#)
            let refused = try await quiet.expect(type: "error")
            #expect(refused["code"] as? String == "bad_request")
            #expect(refused["close"] == nil)
            try await quiet.send(#"{"type":"unsubscribe","req":2,"board":"main"}"#)
            _ = try await quiet.expect(type: "ok")
            await quiet.close()

            // The owner saw the card, and no presence line at all (no join, no leave): the pong comes next.
            #expect(try await owner.expect(type: "delta")["seq"] as? Int == 1)
            try await owner.send(#"{"type":"ping","req":"after"}"#)
            let next = try await owner.expect(type: "pong", skipping: ["ping"])
            #expect(next["req"] as? String == "after")
            await owner.close()
        }
    }

    @Test func aQuietSubscriptionBecomesAnnouncedWhenSubscribedAgainWithPresence() async throws {
        try await withTestServer { server in
            let owner = try await server.connect()
            try await owner.send(#"{"type":"subscribe","board":"main"}"#)
            _ = try await owner.expect(type: "presence.state", skipping: Self.catchUp.union(["subscribed"]))
            let other = try await server.connect()
            try await other.send(#"{"type":"subscribe","board":"main","presence":false}"#)
            // The owner's own join is written to the board's subscribers up to 20 ms after it happened, so `other`
            // may get it after its `presence.state` already showed the owner (Protocol.md, "presence"): skipped.
            _ = try await other.expect(type: "presence.state", skipping: Self.catchUp.union(["subscribed"]))
            try await other.send(#"{"type":"subscribe","board":"main"}"#)
            _ = try await other.expect(type: "presence.state", skipping: Self.catchUp.union(["subscribed", "presence"]))
            let joined = try await owner.expect(type: "presence", skipping: ["ping"])
            #expect(joined["state"] as? String == "viewing")
            await other.close()
            #expect(try await owner.expect(type: "presence.left", skipping: ["ping"])["session"] as? String == joined["session"] as? String)
            await owner.close()
        }
    }
}
