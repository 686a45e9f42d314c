import BoardCore
import BoardServer
import BoardStore
import BoardTesting
import BoardWire
import Foundation
import Testing

/// Presence across two `corkd` nodes (in-process servers over real TLS) on one PostgreSQL database: a
/// subscriber on one node sees the people on the other in `presence.state` and as `presence` / `presence.left`
/// lines, also after its node's LISTEN connection was terminated.
@Suite(.serialized, .enabled(if: PostgresTestDatabase.isEnabled), .startsProcesses(within: .minutes(3)))
struct MultiNodePresenceTests {
    /// Reads lines until one satisfies `match` (a JSON object), failing after `timeout`.
    static func awaitLine(
        _ probe: WireProbe, _ what: String, timeout: Duration = .seconds(15), _ match: ([String: Any]) -> Bool
    ) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let object = try await probe.nextObject() else { throw TestFailure("closed while waiting for \(what)") }
            if match(object) { return object }
        }
        throw TestFailure("no \(what) within \(timeout)")
    }

    /// The sessions of a `presence.state` line.
    static func sessions(_ state: [String: Any]) -> [String] {
        (state["sessions"] as? [[String: Any]] ?? []).compactMap { $0["session"] as? String }
    }

    /// Connects and returns the probe with its session id.
    static func connect(_ node: TestServer) async throws -> (WireProbe, String) {
        let probe = try await WireProbe.connect(port: node.port, fingerprint: node.fingerprint)
        try await probe.send(#"{"type":"hello","version":1,"client":"test","token":"\#(node.ownerToken)"}"#)
        let welcome = try await probe.expect(type: "welcome")
        return (probe, try #require(welcome["session"] as? String))
    }

    @Test("a subscriber on one node sees the other node's people: in presence.state, their joins, changes and leaves")
    func presenceAcrossTwoNodes() async throws {
        try await MultiNodeTests.withTwoNodes { _, one, two in
            let (alice, aliceSession) = try await Self.connect(one)
            try await alice.send(#"{"type":"subscribe","board":"main"}"#)
            let aliceState = try await alice.expect(type: "presence.state", skipping: ["snapshot", "subscribed", "ping"])
            #expect(Self.sessions(aliceState) == [aliceSession])

            let (bob, bobSession) = try await Self.connect(two)
            try await bob.send(#"{"type":"subscribe","board":"main"}"#)
            // Node one hears of bob's join and tells alice.
            let join = try await Self.awaitLine(alice, "bob's join") { $0["type"] as? String == "presence" && $0["session"] as? String == bobSession }
            #expect(join["state"] as? String == "viewing")
            #expect(join["user"] as? String == "owner")
            #expect(join["board"] as? String == "main")
            #expect(join["node"] == nil, "a remote entry looks like a local one")
            // Bob learns of alice: in his presence.state if node two heard of her first, else as a presence line.
            let bobState = try await bob.expect(type: "presence.state", skipping: ["snapshot", "subscribed", "ping"])
            if !Self.sessions(bobState).contains(aliceSession) {
                _ = try await Self.awaitLine(bob, "alice's presence") { $0["type"] as? String == "presence" && $0["session"] as? String == aliceSession }
            }
            // A later subscriber on node two gets both in presence.state, in session order.
            let (carol, carolSession) = try await Self.connect(two)
            try await carol.send(#"{"type":"subscribe","board":"main"}"#)
            let carolState = try await carol.expect(type: "presence.state", skipping: ["snapshot", "subscribed", "ping"])
            #expect(Self.sessions(carolState) == [aliceSession, bobSession, carolSession].sorted())

            // A change on node two reaches node one.
            try await bob.send(#"{"type":"presence","board":"main","state":"editing","card":"c1"}"#)
            let editing = try await Self.awaitLine(alice, "bob editing") {
                $0["type"] as? String == "presence" && $0["session"] as? String == bobSession && $0["state"] as? String == "editing"
            }
            #expect(editing["card"] as? String == "c1")
            // Leaves: an unsubscribe on node two, a disconnect on node one.
            try await bob.send(#"{"type":"unsubscribe","board":"main"}"#)
            let left = try await Self.awaitLine(alice, "bob's leave") { $0["type"] as? String == "presence.left" && $0["session"] as? String == bobSession }
            #expect(left["user"] as? String == "owner")
            await alice.close()
            _ = try await Self.awaitLine(carol, "alice's leave") { $0["type"] as? String == "presence.left" && $0["session"] as? String == aliceSession }
            await bob.close()
            await carol.close()
        }
    }

    @Test("a board another node made shows that node's people at once when this node first serves it")
    func firstServedBoardShowsKnownPeople() async throws {
        try await MultiNodeTests.withTwoNodes { _, one, two in
            // Dave on node two follows main, where bob's join will tell that node two has heard what came before.
            let (dave, _) = try await Self.connect(two)
            try await dave.send(#"{"type":"subscribe","board":"main"}"#)
            _ = try await dave.expect(type: "presence.state", skipping: ["snapshot", "subscribed", "ping"])
            // Bob makes board ops through node one and is present there, then on main.
            let (bob, bobSession) = try await Self.connect(one)
            try await bob.send(#"{"type":"board.create","req":1,"board":"ops","name":"Ops"}"#)
            _ = try await Self.awaitLine(bob, "ok of board.create") { $0["type"] as? String == "ok" }
            try await bob.send(#"{"type":"subscribe","board":"ops"}"#)
            _ = try await bob.expect(type: "presence.state", skipping: ["snapshot", "subscribed", "ping"])
            try await bob.send(#"{"type":"subscribe","board":"main"}"#)
            _ = try await Self.awaitLine(dave, "bob's join on main") {
                $0["type"] as? String == "presence" && $0["session"] as? String == bobSession
            }
            // Node two has heard of bob on ops (in order, before main), and serves ops only from now on: carol sees
            // him in presence.state or right after, not only at his next change.
            let (carol, _) = try await Self.connect(two)
            try await carol.send(#"{"type":"subscribe","board":"ops"}"#)
            let state = try await carol.expect(type: "presence.state", skipping: ["snapshot", "subscribed", "ping"])
            if !Self.sessions(state).contains(bobSession) {
                _ = try await Self.awaitLine(carol, "bob on ops", timeout: .seconds(5)) {
                    $0["type"] as? String == "presence" && $0["session"] as? String == bobSession && $0["board"] as? String == "ops"
                }
            }
            await carol.close()
            await bob.close()
            await dave.close()
        }
    }

    @Test("a node whose presence LISTEN backend is terminated listens again, and people who joined meanwhile show")
    func listenTerminatedResyncs() async throws {
        try await MultiNodeTests.withTwoNodes(configure: { $0.listenRetryDelay = .seconds(1) }) { location, one, two in
            let (alice, aliceSession) = try await Self.connect(one)
            try await alice.send(#"{"type":"subscribe","board":"main"}"#)
            _ = try await alice.expect(type: "presence.state", skipping: ["snapshot", "subscribed", "ping"])
            // Node two knows alice before the cut.
            let (watcher, _) = try await Self.connect(two)
            try await watcher.send(#"{"type":"subscribe","board":"main","presence":false}"#)
            let state = try await watcher.expect(type: "presence.state", skipping: ["snapshot", "subscribed", "ping"])
            if !Self.sessions(state).contains(aliceSession) {
                _ = try await Self.awaitLine(watcher, "alice's presence") { $0["type"] as? String == "presence" && $0["session"] as? String == aliceSession }
            }
            _ = try await PostgresTestDatabase.terminateListeners(on: location)
            // Bob joins on node two while node one does not listen (it waits a second before it listens again): node
            // one misses the NOTIFY and must learn of bob when it asks every node to announce again.
            let (bob, bobSession) = try await Self.connect(two)
            try await bob.send(#"{"type":"subscribe","board":"main"}"#)
            _ = try await Self.awaitLine(alice, "bob's join after the LISTEN came back") {
                $0["type"] as? String == "presence" && $0["session"] as? String == bobSession
            }
            // Alice never left node two's presence.
            let (late, _) = try await Self.connect(two)
            try await late.send(#"{"type":"subscribe","board":"main","presence":false}"#)
            let lateState = try await late.expect(type: "presence.state", skipping: ["snapshot", "subscribed", "ping"])
            #expect(Set(Self.sessions(lateState)) == [aliceSession, bobSession])
            for probe in [alice, watcher, bob, late] { await probe.close() }
        }
    }
}
