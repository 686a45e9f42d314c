import BoardCore
import BoardServer
import BoardStore
import BoardTesting
import Foundation
import NIOCore
import Testing

/// Several nodes on one PostgreSQL database act as one server for boards and admin commands: a board made
/// through one node is served by every node, and what `corkd revoke` and `corkd board archive` change takes effect
/// on every node, whichever node applied the command.
@Suite(.serialized, .enabled(if: PostgresTestDatabase.isEnabled), .startsProcesses(within: .minutes(3)))
struct MultiNodeAdminTests {
    /// Waits (bounded) until the admin command is no longer pending, and returns its outcome.
    static func settled(_ id: Int64, on node: TestServer) async throws -> AdminOutcome {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            let outcome = try await node.store.outcomes([id])[id]
            if let outcome, outcome != .pending { return outcome }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestFailure("admin command \(id) still pending after 20 s")
    }

    /// Subscribes the probe to `board` and returns how it ended: `subscribed` (after the snapshot) or an error.
    static func subscribe(_ probe: WireProbe, to board: String) async throws -> [String: Any] {
        try await probe.send(#"{"type":"subscribe","board":"\#(board)","presence":false}"#)
        while true {
            guard let answer = try await probe.nextObject() else { throw TestFailure("closed while subscribing to \(board)") }
            let type = answer["type"] as? String ?? ""
            if type == "subscribed" || type == "error" { return answer }
        }
    }

    @Test("a board created through one node is served by the other at once")
    func aBoardCreatedOnOneNodeIsServedByTheOther() async throws {
        try await MultiNodeTests.withTwoNodes { _, one, two in
            let owner = try await one.connect()
            try await owner.send(#"{"type":"board.create","req":1,"board":"b2","name":"Two"}"#)
            let created = try await owner.expect(type: "ok")
            #expect(created["req"] as? Int == 1)
            let other = try await two.connect()
            let answer = try await Self.subscribe(other, to: "b2")
            #expect(answer["type"] as? String == "subscribed", "node two answered \(answer)")
            await owner.close()
            await other.close()
        }
    }

    @Test("a revoked user's sessions are closed on every node, whichever node applied the revoke")
    func aRevokeClosesSessionsOnEveryNode() async throws {
        try await MultiNodeTests.withTwoNodes { _, one, two in
            let token = try await one.invite("mallory")
            let onOne = try await one.connect(token: token)
            let onTwo = try await two.connect(token: token)
            _ = try await one.store.revokeTokens(of: "mallory", now: WallClock().now())
            _ = try await one.store.enqueue(.revoke(user: "mallory"), now: WallClock().now())
            for (name, probe) in [("one", onOne), ("two", onTwo)] {
                let lines = try await probe.expectClose()
                #expect(lines.contains { $0.contains(#""code":"token_revoked""#) }, "node \(name) sent \(lines)")
            }
        }
    }

    @Test("a board archived through the admin queue stops being served on every node, and comes back on every node")
    func anArchiveTakesEffectOnEveryNode() async throws {
        try await MultiNodeTests.withTwoNodes { _, one, two in
            let create = try await one.store.enqueue(.createBoard(board: "b3", name: "Three", owner: "owner"), now: WallClock().now())
            #expect(try await Self.settled(create, on: one) == .done)
            let watchers = [try await one.connect(), try await two.connect()]
            for watcher in watchers {
                let answer = try await Self.subscribe(watcher, to: "b3")
                try #require(answer["type"] as? String == "subscribed", "subscribe answered \(answer)")
            }
            let archive = try await one.store.enqueue(.archiveBoard(board: "b3"), now: WallClock().now())
            #expect(try await Self.settled(archive, on: one) == .done)
            for watcher in watchers {
                let told = try await watcher.expect(type: "error")
                #expect(told["code"] as? String == "not_found")
            }
            // Every node has heard of it once a fresh subscribe is refused (bounded by the probe's timeout).
            for node in [one, two] {
                let probe = try await node.connect()
                #expect(try await Self.subscribe(probe, to: "b3")["code"] as? String == "not_found")
                await probe.close()
            }
            let unarchive = try await one.store.enqueue(.unarchiveBoard(board: "b3"), now: WallClock().now())
            #expect(try await Self.settled(unarchive, on: one) == .done)
            for node in [one, two] {
                let probe = try await node.connect()
                let answer = try await Self.subscribe(probe, to: "b3")
                #expect(answer["type"] as? String == "subscribed", "after unarchive: \(answer)")
                await probe.close()
            }
            for watcher in watchers { await watcher.close() }
        }
    }
}

extension MultiNodeAdminTests {
    /// A client the archive turns away asks for the board again at once (`cork watch` does). On the node applying the
    /// archive, that request came between the board leaving and the store saying archived: the node loaded the board
    /// again and served it, so the archive held on the other node only, and a later unarchive found it served and
    /// did nothing while the store kept it archived.
    @Test("a subscriber asking again during an archive does not bring the board back on any node")
    func aResubscribeDuringAnArchiveDoesNotServeTheBoardAgain() async throws {
        try await MultiNodeTests.withTwoNodes { _, one, two in
            let create = try await one.store.enqueue(.createBoard(board: "b4", name: "Four", owner: "owner"), now: WallClock().now())
            #expect(try await Self.settled(create, on: one) == .done)
            var askers: [Task<Void, Never>] = []
            var watchers: [WireProbe] = []
            for node in [one, two] {
                let watcher = try await node.connect()
                let answer = try await Self.subscribe(watcher, to: "b4")
                try #require(answer["type"] as? String == "subscribed", "subscribe answered \(answer)")
                watchers.append(watcher)
                let channel = watcher.channel.channel
                askers.append(Task {
                    while !Task.isCancelled {
                        let line = ByteBuffer(string: #"{"type":"subscribe","board":"b4","presence":false}"# + "\n")
                        guard (try? await channel.writeAndFlush(line)) != nil else { return }
                        try? await Task.sleep(for: .milliseconds(1))
                    }
                })
            }
            let archive = try await one.store.enqueue(.archiveBoard(board: "b4"), now: WallClock().now())
            #expect(try await Self.settled(archive, on: one) == .done)
            try await Task.sleep(for: .milliseconds(300))
            for asker in askers { asker.cancel() }
            for watcher in watchers { await watcher.close() }
            for (name, node) in [("one", one), ("two", two)] {
                let probe = try await node.connect()
                let answer = try await Self.subscribe(probe, to: "b4")
                #expect(answer["code"] as? String == "not_found", "node \(name) serves the archived board: \(answer)")
                await probe.close()
            }
            let unarchive = try await one.store.enqueue(.unarchiveBoard(board: "b4"), now: WallClock().now())
            #expect(try await Self.settled(unarchive, on: one) == .done)
            for (name, node) in [("one", one), ("two", two)] {
                let probe = try await node.connect()
                let answer = try await Self.subscribe(probe, to: "b4")
                #expect(answer["type"] as? String == "subscribed", "node \(name) after unarchive: \(answer)")
                await probe.close()
            }
        }
    }
}

/// Webhooks with several nodes on one database: one node delivers (the hooks lease), so each change reaches the
/// receiver once, not once per node.
@Suite(.serialized, .enabled(if: PostgresTestDatabase.isEnabled), .startsProcesses(within: .minutes(3)))
struct MultiNodeHookTests {
    @Test("with two nodes each change is delivered once, whichever node took the op")
    func eachChangeIsDeliveredOnce() async throws {
        try await MultiNodeTests.withTwoNodes(configure: { HookDeliveryTests.configure(&$0) }) { _, one, two in
            try await withHookReceiver(secret: HookDeliveryTests.secret, logDirectory: HookDeliveryTests.logs(one)) { receiver in
                let first = HookDeliveryTests.Owner(try await one.connect())
                let second = HookDeliveryTests.Owner(try await two.connect())
                second.mut = 1_000
                _ = try await first.addHook(receiver.url)
                var expected: [Int] = []
                for n in 1...4 {
                    expected.append(try await first.apply(#"{"kind":"card.add","card":"a\#(n)","title":"From one \#(n)"}"#))
                    expected.append(try await second.apply(#"{"kind":"card.add","card":"b\#(n)","title":"From two \#(n)"}"#))
                }
                #expect(await receiver.wait { $0.count >= expected.count }, "accepted: \(receiver.deliveries.map(\.seq))")
                // A second node delivering too would repeat them: give it time to, then count.
                try await Task.sleep(for: .milliseconds(1_500))
                let deliveries = receiver.deliveries
                #expect(deliveries.map(\.seq) == expected.sorted(), "\(receiver.log)")
                #expect(deliveries.allSatisfy { !$0.repeatDelivery }, "a change delivered twice: \(receiver.log)")
                await first.probe.close()
                await second.probe.close()
            }
        }
    }
}
