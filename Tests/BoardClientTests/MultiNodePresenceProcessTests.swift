import BoardTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Presence across two real `corkd` processes on one PostgreSQL database: a client on each node sees the
/// other's join and leave, and after `kill -9` of a node its people leave the other node's presence within the
/// documented 10 s (Protocol.md, "presence").
@Suite(.serialized, .enabled(if: PostgresTestDatabase.isEnabled), .startsProcesses(within: .minutes(3)))
struct MultiNodePresenceProcessTests {
    /// A probe logged in as the owner on `node`, subscribed to `main`, with its session id and first `presence.state`.
    static func subscribed(_ node: CorkdProcess, fingerprintOf first: CorkdProcess) async throws
        -> (probe: WireProbe, session: String, state: [String])
    {
        let probe = try await WireProbe.connect(port: node.port, fingerprint: try first.pinned(), timeout: .seconds(30))
        try await probe.send(#"{"type":"hello","version":1,"client":"test","token":"\#(node.ownerToken)"}"#)
        let session = try #require(try await probe.expect(type: "welcome")["session"] as? String)
        try await probe.send(#"{"type":"subscribe","board":"main"}"#)
        let state = try await probe.expect(type: "presence.state", skipping: ["snapshot", "subscribed", "ping"])
        let sessions = (state["sessions"] as? [[String: Any]] ?? []).compactMap { $0["session"] as? String }
        return (probe, session, sessions)
    }

    /// Reads lines until a `type` line about `session` comes, failing after `timeout`; returns how long it took.
    @discardableResult
    static func awaitLine(_ probe: WireProbe, type: String, session: String, timeout: Duration) async throws -> Duration {
        let started = ContinuousClock.now
        while ContinuousClock.now - started < timeout {
            guard let object = try await probe.nextObject() else { throw TestFailure("closed while waiting for \(type) of \(session)") }
            if object["type"] as? String == type, object["session"] as? String == session { return ContinuousClock.now - started }
        }
        throw TestFailure("no \(type) of \(session) within \(timeout)")
    }

    /// Two real nodes on a fresh database, alice subscribed on the first and bob on the second, once alice has seen
    /// bob join; the nodes are killed when `body` returns.
    static func withAliceAndBob(
        _ body: ([CorkdProcess], (probe: WireProbe, session: String, state: [String]), (probe: WireProbe, session: String, state: [String]))
            async throws -> Void
    ) async throws {
        try await PostgresTestDatabase.withDatabase { location in
            try await MultiNodeFailoverTests.withNodes(2, store: location) { nodes in
                let alice = try await Self.subscribed(nodes[0], fingerprintOf: nodes[0])
                let bob = try await Self.subscribed(nodes[1], fingerprintOf: nodes[0])
                try await Self.awaitLine(alice.probe, type: "presence", session: bob.session, timeout: .seconds(10))
                try await body(nodes, alice, bob)
            }
        }
    }

    @Test("two real nodes: each client sees the other's join and leave; after kill -9 of a node its people leave the other's presence within the TTL")
    func joinLeaveAndKillNine() async throws {
        try await Self.withAliceAndBob { nodes, alice, bob in
            if !bob.state.contains(alice.session) {
                try await Self.awaitLine(bob.probe, type: "presence", session: alice.session, timeout: .seconds(10))
            }
            // Bob leaves (unsubscribe) and comes back; alice sees both.
            try await bob.probe.send(#"{"type":"unsubscribe","board":"main"}"#)
            try await Self.awaitLine(alice.probe, type: "presence.left", session: bob.session, timeout: .seconds(10))
            try await bob.probe.send(#"{"type":"subscribe","board":"main"}"#)
            try await Self.awaitLine(alice.probe, type: "presence", session: bob.session, timeout: .seconds(10))
            // Alice leaves (disconnect); bob sees it.
            await alice.probe.close()
            try await Self.awaitLine(bob.probe, type: "presence.left", session: alice.session, timeout: .seconds(10))

            // Kill bob's node: nobody says bob left; node one forgets node two's people once it is silent for
            // the TTL (10 s, heartbeats every 2 s).
            let carol = try await Self.subscribed(nodes[0], fingerprintOf: nodes[0])
            #expect(carol.state.contains(bob.session), "node one shows bob in presence.state")
            let exit = try await nodes[1].kill9()
            #expect(exit.reason == .uncaughtSignal && exit.status == SIGKILL, "\(exit)")
            let took = try await Self.awaitLine(carol.probe, type: "presence.left", session: bob.session, timeout: .seconds(25))
            print("bob left node one's presence \(took) after kill -9 of node two")
            let dave = try await Self.subscribed(nodes[0], fingerprintOf: nodes[0])
            #expect(!dave.state.contains(bob.session), "no ghost in presence.state")
            await bob.probe.close()
            await carol.probe.close()
            await dave.probe.close()
        }
    }

    @Test("a node that stops gracefully (SIGTERM) says bye: its people leave the other node's presence at once, not after the TTL")
    func gracefulStopSaysBye() async throws {
        try await Self.withAliceAndBob { nodes, alice, bob in
            let exit = try await nodes[1].terminate()
            #expect(exit.isSuccess, "\(exit)")
            // Well inside the 10 s a silent node's people last: only the node's `bye` explains a leave this soon.
            let took = try await Self.awaitLine(alice.probe, type: "presence.left", session: bob.session, timeout: .seconds(5))
            print("bob left node one's presence \(took) after node two's SIGTERM")
            await alice.probe.close()
            await bob.probe.close()
        }
    }
}
