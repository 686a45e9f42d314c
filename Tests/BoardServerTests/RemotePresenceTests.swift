import BoardCore
import BoardWire
import Foundation
import Testing
@testable import BoardServer

/// The merge of other nodes' presence: joins, changes and leaves show; a full announcement replaces what a
/// node had; a node not heard for the TTL, a node that says `bye` and a node's former self (same name) drop out; the
/// payloads stay below NOTIFY's limit and read back as sent.
@Suite struct RemotePresenceTests {
    static func entry(_ session: String, _ user: String = "bob", state: PresenceActivity = .viewing, card: String? = nil)
        -> ServerMessage.PresenceEntry
    {
        ServerMessage.PresenceEntry(session: SessionID(session), user: UserID(user), state: state, card: card.map { CardID($0) })
    }

    static func message(_ node: String, _ events: PresenceRelayEvent...) -> PresenceRelayMessage {
        PresenceRelayMessage(node: node, events: events)
    }

    @Test("joins, changes and leaves of another node show; a repetition changes nothing; this node's own messages are ignored")
    func joinsChangesAndLeaves() {
        var merge = RemotePresence(me: "n-me", ttlMs: 10_000)
        let bob = Self.entry("s-b")
        #expect(merge.receive(Self.message("n-a", .begin, .set(board: "main", entry: bob), .end), nowMs: 0) == [.set("main", bob)])
        #expect(merge.receive(Self.message("n-a", .set(board: "main", entry: bob)), nowMs: 1) == [], "a repetition")
        let editing = Self.entry("s-b", state: .editing, card: "c1")
        #expect(merge.receive(Self.message("n-a", .set(board: "main", entry: editing)), nowMs: 2) == [.set("main", editing)])
        #expect(merge.entries(on: "main") == ["s-b": editing])
        #expect(merge.receive(Self.message("n-a", .left(board: "main", session: "s-b", user: "bob")), nowMs: 3) == [.left("main", "s-b", "bob")])
        #expect(merge.receive(Self.message("n-a", .left(board: "main", session: "s-b", user: "bob")), nowMs: 4) == [], "left twice")
        #expect(merge.receive(Self.message("n-me", .set(board: "main", entry: bob), .ask(to: nil)), nowMs: 5) == [], "our own")
        #expect(merge.entries(on: "main").isEmpty)
    }

    @Test("a node heard from for the first time without its full announcement is asked for one; an ask to all or to us is answered")
    func asks() {
        var merge = RemotePresence(me: "n-me", ttlMs: 10_000)
        #expect(merge.receive(Self.message("n-a", .beat(name: "h:1")), nowMs: 0) == [.ask("n-a")])
        #expect(merge.receive(Self.message("n-a", .beat(name: "h:1")), nowMs: 1) == [], "known now")
        #expect(merge.receive(Self.message("n-b", .ask(to: nil), .begin, .end), nowMs: 2) == [.announce])
        #expect(merge.receive(Self.message("n-b", .ask(to: "n-me")), nowMs: 3) == [.announce])
        #expect(merge.receive(Self.message("n-b", .ask(to: "n-a")), nowMs: 4) == [], "asked of another node")
    }

    @Test("inbox entries read on another node are passed on to this node's sessions; our own are not, and a payload reads back")
    func inboxReads() {
        var merge = RemotePresence(me: "n-me", ttlMs: 10_000)
        let read = PresenceRelayEvent.inboxRead(user: "alice", ids: [4, 9], unread: 2)
        #expect(merge.receive(Self.message("n-a", .begin, .end, read), nowMs: 0) == [.inboxRead("alice", [4, 9], unread: 2)])
        #expect(merge.receive(Self.message("n-me", read), nowMs: 1) == [], "our own: the sessions here were told already")
        let payloads = PresenceRelayMessage.pack(node: "n-a", events: [read], maxBytes: 8_000)
        #expect(payloads.count == 1 && PresenceRelayMessage.parse(payloads[0]) == Self.message("n-a", read))
    }

    @Test("a full announcement replaces what the node had: entries it does not repeat leave, changes show, the same stay quiet")
    func announcementReplaces() {
        var merge = RemotePresence(me: "n-me", ttlMs: 10_000)
        let (b, c, d) = (Self.entry("s-b"), Self.entry("s-c", "carol"), Self.entry("s-d", "dan"))
        _ = merge.receive(Self.message("n-a", .begin, .set(board: "main", entry: b), .set(board: "main", entry: c), .set(board: "ops", entry: d), .end), nowMs: 0)
        let c2 = Self.entry("s-c", "carol", state: .editing, card: "c9")
        let e = Self.entry("s-e", "erin")
        // Split over two payloads, with a leave in the middle: only what was said since `begin` stays.
        #expect(merge.receive(Self.message("n-a", .begin, .set(board: "main", entry: c2)), nowMs: 1) == [.set("main", c2)])
        #expect(
            merge.receive(Self.message("n-a", .set(board: "main", entry: e), .end), nowMs: 2)
                == [.set("main", e), .left("main", "s-b", "bob"), .left("ops", "s-d", "dan")])
        #expect(merge.entries(on: "main") == ["s-c": c2, "s-e": e])
        #expect(merge.entries(on: "ops").isEmpty)
    }

    @Test("a node not heard for longer than the TTL is forgotten with all its sessions; one that beats stays")
    func silentNodesExpire() {
        var merge = RemotePresence(me: "n-me", ttlMs: 10_000)
        _ = merge.receive(Self.message("n-a", .begin, .set(board: "main", entry: Self.entry("s-a1", "ann")), .end), nowMs: 0)
        _ = merge.receive(Self.message("n-b", .begin, .set(board: "main", entry: Self.entry("s-b1")), .end), nowMs: 0)
        _ = merge.receive(Self.message("n-b", .beat(name: "h:2")), nowMs: 8_000)
        #expect(merge.expire(nowMs: 10_000) == [], "within the TTL")
        #expect(merge.expire(nowMs: 10_001) == [.left("main", "s-a1", "ann")])
        #expect(merge.entries(on: "main") == ["s-b1": Self.entry("s-b1")])
        #expect(merge.expire(nowMs: 18_001) == [.left("main", "s-b1", "bob")])
        #expect(merge.nodes.isEmpty)
    }

    @Test("bye drops every session of the node at once; a restarted node (hello, same name) replaces its former self")
    func byeAndRestart() {
        var merge = RemotePresence(me: "n-me", ttlMs: 10_000)
        _ = merge.receive(Self.message("n-a", .hello(name: "h:1"), .begin, .set(board: "main", entry: Self.entry("s-a1", "ann")), .end), nowMs: 0)
        _ = merge.receive(Self.message("n-b", .hello(name: "h:2"), .begin, .set(board: "main", entry: Self.entry("s-b1")), .end), nowMs: 0)
        #expect(merge.receive(Self.message("n-b", .bye), nowMs: 1) == [.left("main", "s-b1", "bob")])
        // n-a is killed and starts again as n-a2 on the same host and port: ann's old session goes at once.
        let fresh = Self.entry("s-a2", "ann")
        #expect(
            merge.receive(Self.message("n-a2", .hello(name: "h:1"), .begin, .set(board: "main", entry: fresh), .end), nowMs: 2)
                == [.left("main", "s-a1", "ann"), .set("main", fresh)])
        #expect(merge.entries(on: "main") == ["s-a2": fresh])
    }

    @Test("packing keeps every event in order, each payload within the limit, and reads back as sent")
    func packing() throws {
        let events: [PresenceRelayEvent] = [.hello(name: "host:7420"), .beat(name: "host:7420"), .ask(to: nil), .begin]
            + (0..<300).map { .set(board: "main", entry: Self.entry("s-\($0)-" + String(repeating: "x", count: 50), "user\($0)", state: .dragging, card: "c\($0)")) }
            + [.left(board: "main", session: "s-1", user: "u"), .end, .bye]
        let payloads = PresenceRelayMessage.pack(node: "n-abc", events: events, maxBytes: 6_000)
        #expect(payloads.count > 1)
        #expect(payloads.allSatisfy { $0.utf8.count <= 6_000 })
        let read = payloads.map { PresenceRelayMessage.parse($0) }
        #expect(read.allSatisfy { $0?.node == "n-abc" })
        #expect(read.flatMap { $0?.events ?? [] } == events)
        #expect(PresenceRelayMessage.parse("1 2 main") == nil, "a heads payload is not a presence message")
        // The encoder's key order varies from call to call: every packing must read back (it did not, half the time).
        for _ in 0..<20 {
            let small = PresenceRelayMessage.pack(node: "n-abc", events: [.beat(name: "h:1"), .ask(to: nil)], maxBytes: 6_000)
            #expect(small.count == 1 && PresenceRelayMessage.parse(small[0]) == PresenceRelayMessage(node: "n-abc", events: [.beat(name: "h:1"), .ask(to: nil)]), "\(small)")
        }
    }
}
