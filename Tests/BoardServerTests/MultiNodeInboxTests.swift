import BoardCore
import BoardServer
import BoardStore
import BoardTesting
import BoardTransport
import Foundation
import Logging
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The inbox with two real `corkd` processes on one PostgreSQL database (Protocol.md, "Inbox": one node derives the
/// entries, the one holding the `inbox` lease; every node sends `inbox.entry` to the sessions it serves). A mention
/// made through one node reaches its user's sessions on both nodes, whichever node derived it; after `kill -9` of
/// the node holding the lease, the other takes over: the next mention still reaches her, and her inbox holds each
/// mention once. An entry read through one node is read on the sessions of both. A board made through the node
/// without the lease is derived too.
@Suite(.serialized, .enabled(if: PostgresTestDatabase.isEnabled), .startsProcesses(within: .minutes(3)))
struct MultiNodeInboxTests {
    /// How long an entry may take to reach a session (the deriver looks at every board every 5 s besides the ones it
    /// saw commit, a node that did not derive it polls the store every 2 s, and the machine is shared).
    static let bound: Duration = .seconds(20)

    @Test("a mention made through one node reaches its user's sessions on both nodes; after kill -9 of the node holding the inbox lease the other derives and sends the next one, and the inbox holds each once")
    func mentionsAcrossNodesAndTheDeriversDeath() async throws {
        try await PostgresTestDatabase.withDatabase { location in
            try await Self.withNodes(2, store: location) { nodes in
                let tokens = try await Self.invite(["alice", "bob"], on: location)
                let aliceToken = try #require(tokens["alice"])
                let bobToken = try #require(tokens["bob"])
                let fingerprint = try nodes[0].pinned()
                // alice on node A (and a second session of hers on node B: a node that did not derive an entry finds it
                // by polling the store); bob on node B.
                let aliceOnA = try await Self.login(nodes[0], token: aliceToken, fingerprint: fingerprint)
                let aliceOnB = try await Self.login(nodes[1], token: aliceToken, fingerprint: fingerprint)
                var bob = try await Self.login(nodes[1], token: bobToken, fingerprint: fingerprint)
                var mut = 0
                let first = try await InboxTests.chat("@alice standup in 5", from: bob, mut: &mut)
                var seen: [ObjectIdentifier: [Int]] = [:]
                var firstID = 0
                for probe in [aliceOnA, aliceOnB] {
                    let entry = try await Self.entry(seq: first, on: probe, seen: &seen)
                    #expect(entry["kind"] as? String == "mention" && entry["actor"] as? String == "bob", "\(entry)")
                    #expect(entry["text"] as? String == "@alice standup in 5" && entry["card"] == nil, "\(entry)")
                    firstID = entry["id"] as? Int ?? 0
                }

                // Read on node B: her session on node A is told too (through the presence channel), at once.
                try await aliceOnB.send(#"{"type":"inbox.read","req":7,"ids":[\#(firstID)]}"#)
                _ = try await InboxTests.next("ok", from: aliceOnB)
                for probe in [aliceOnB, aliceOnA] {
                    let told = try await InboxTests.next("inbox.read", from: probe)
                    #expect(told["ids"] as? [Int] == [firstID] && told["unread"] as? Int == 0, "\(told)")
                }

                // The node that derived it holds the lease (its log says it took it and has not lost it since); A if
                // the logs cannot tell.
                let holder = Self.inboxLeaseHolder(nodes)
                let killed = holder ?? 0
                let survivor = 1 - killed
                print("inbox lease held by node \(holder.map { "\($0 == 0 ? "A" : "B")" } ?? "? (stopping A)"); kill -9")
                let exit = try await nodes[killed].kill9()
                #expect(exit.reason == .uncaughtSignal && exit.status == SIGKILL, "\(exit)")

                // Whoever was on the dead node comes back on the survivor; alice also gets a fresh session there.
                if killed == 1 {
                    await bob.close()
                    bob = try await Self.login(nodes[survivor], token: bobToken, fingerprint: fingerprint)
                }
                let aliceAgain = try await Self.login(nodes[survivor], token: aliceToken, fingerprint: fingerprint)
                let aliceBefore = killed == 0 ? aliceOnB : aliceOnA
                let second = try await InboxTests.chat("@alice the release is out", from: bob, mut: &mut)
                #expect(second > first)
                for probe in [aliceAgain, aliceBefore] {
                    let entry = try await Self.entry(seq: second, on: probe, seen: &seen)
                    #expect(entry["kind"] as? String == "mention" && entry["text"] as? String == "@alice the release is out", "\(entry)")
                }
                for (probe, ids) in seen {
                    #expect(Set(ids).count == ids.count, "a session was sent an entry twice: \(ids) (\(probe))")
                }

                // Her inbox, read on the survivor: both mentions, each once, newest first.
                try await aliceAgain.send(#"{"type":"inbox","req":1,"limit":200}"#)
                let page = try await InboxTests.next("inbox", from: aliceAgain)
                let entries = page["entries"] as? [[String: Any]] ?? []
                let mentions = entries.filter { $0["kind"] as? String == "mention" }
                #expect(mentions.count == 2, "exactly two mentions: \(entries)")
                #expect(mentions.compactMap { $0["seq"] as? Int } == [second, first], "\(entries)")
                #expect(Set(mentions.compactMap { $0["id"] as? Int }).count == 2, "\(entries)")
                #expect(mentions.allSatisfy { $0["actor"] as? String == "bob" && $0["user"] as? String == "alice" })
                #expect(entries.count == 2 && page["unread"] as? Int == 1, "nothing else in her inbox, the first read: \(page)")

                for probe in [aliceOnA, aliceOnB, bob, aliceAgain] { await probe.close() }
            }
        }
    }

    @Test("a mention on a board made through the node without the inbox lease reaches its user on the node with it")
    func mentionOnABoardMadeThroughTheOtherNode() async throws {
        try await PostgresTestDatabase.withDatabase { location in
            try await Self.withNodes(2, store: location) { nodes in
                let aliceToken = try #require(try await Self.invite(["alice"], on: location)["alice"])
                let fingerprint = try nodes[0].pinned()
                // The node that holds the lease has not loaded the new board: nobody used it there.
                let deadline = ContinuousClock.now + Self.bound
                var holder = Self.inboxLeaseHolder(nodes)
                while holder == nil, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(50))
                    holder = Self.inboxLeaseHolder(nodes)
                }
                let deriver = try #require(holder, "no node says it holds the inbox lease")
                let alice = try await Self.login(nodes[deriver], token: aliceToken, fingerprint: fingerprint)
                let owner = try await Self.login(nodes[1 - deriver], token: nodes[0].ownerToken, fingerprint: fingerprint)
                try await owner.send(#"{"type":"board.create","req":1,"board":"b2","name":"Two"}"#)
                #expect(try await InboxTests.next("ok", from: owner)["req"] as? Int == 1)
                try await owner.send(#"{"type":"op","board":"b2","mut":1,"op":{"kind":"member.set","user":"alice","role":"editor"}}"#)
                _ = try await InboxTests.next("ack", from: owner)
                try await owner.send(#"{"type":"op","board":"b2","mut":2,"op":{"kind":"chat","text":"@alice b2 is up"}}"#)
                let seq = try #require(try await InboxTests.next("ack", from: owner)["seq"] as? Int)
                var seen: [ObjectIdentifier: [Int]] = [:]
                let entry = try await Self.entry(seq: seq, on: alice, seen: &seen)
                #expect(entry["board"] as? String == "b2" && entry["kind"] as? String == "mention", "\(entry)")
                await alice.close()
                await owner.close()
            }
        }
    }

    // MARK: Nodes and people

    /// Starts `count` real nodes on `location` (the first makes the first start; the others serve with its
    /// certificate and know its owner token), no mail; all are killed when `body` returns.
    static func withNodes<T>(_ count: Int, store location: PostgresLocation, _ body: ([CorkdProcess]) async throws -> T) async throws -> T {
        var nodes: [CorkdProcess] = []
        defer { for node in nodes { node.cleanup() } }
        let environment = ProcessInfo.processInfo.environment.merging(["PGPASSWORD": location.password ?? ""]) { $1 }
        let url = "postgres://\(location.user)@\(location.host):\(location.port)/\(location.database)"
        for index in 0..<count {
            let node = try CorkdProcess()
            nodes.append(node)
            var options = ["--store", url, "--no-mail"]
            if index > 0 {
                try node.joinCluster(of: nodes[0])
                options += CorkdProcess.certificateOptions(of: nodes[0])
            }
            try await node.start(options: options, environment: environment)
        }
        return try await body(nodes)
    }

    /// Makes each user an editor of `main` (through the admin queue, as `corkd invite` does) and waits (bounded) until
    /// a node has applied it; their tokens.
    static func invite(_ users: [UserID], on location: PostgresLocation) async throws -> [UserID: String] {
        var logger = Logger(label: "corkd-test")
        logger.logLevel = .critical
        let store = try await PostgresStore.open(location, logger: logger)
        do {
            var tokens: [UserID: String] = [:]
            var commands: [Int64] = []
            for user in users {
                _ = try await store.ensureUser(user, displayName: "")
                tokens[user] = try await store.issueToken(for: user, expiresAt: nil, now: WallClock().now())
                commands.append(try await store.enqueue(.addMember(board: "main", user: user, role: .editor), now: WallClock().now()))
            }
            let deadline = ContinuousClock.now + Self.bound
            while true {
                let outcomes = try await store.outcomes(commands)
                if commands.allSatisfy({ outcomes[$0] != nil && outcomes[$0] != .pending }) {
                    #expect(commands.allSatisfy { outcomes[$0] == .done }, "\(outcomes)")
                    break
                }
                guard ContinuousClock.now < deadline else { throw TestFailure("the memberships are still pending after \(bound)") }
                try await Task.sleep(for: .milliseconds(50))
            }
            try await store.close()
            return tokens
        } catch {
            try? await store.close()
            throw error
        }
    }

    /// A raw connection to `node` with `token`, past `welcome`.
    static func login(_ node: CorkdProcess, token: String, fingerprint: Fingerprint) async throws -> WireProbe {
        let probe = try await WireProbe.connect(port: node.port, fingerprint: fingerprint, timeout: .seconds(30))
        try await probe.send(#"{"type":"hello","version":1,"client":"test","token":"\#(token)"}"#)
        let welcome = try await probe.expect(type: "welcome")
        #expect((welcome["features"] as? [String])?.contains("inbox") == true, "\(welcome)")
        return probe
    }

    /// Reads `probe` until an `inbox.entry` for the change `seq` arrives (within ``bound``), noting the id of every
    /// entry it is sent in `seen`; the entry, checked to be unread.
    static func entry(seq: Int, on probe: WireProbe, seen: inout [ObjectIdentifier: [Int]]) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + Self.bound
        while ContinuousClock.now < deadline {
            guard let line = try await probe.nextObject() else { throw TestFailure("closed while waiting for the entry of seq \(seq)") }
            guard line["type"] as? String == "inbox.entry", let entry = line["entry"] as? [String: Any] else { continue }
            if let id = entry["id"] as? Int { seen[ObjectIdentifier(probe), default: []].append(id) }
            if entry["seq"] as? Int == seq {
                #expect(entry["user"] as? String == "alice" && entry["read"] as? Bool == false, "\(line)")
                return entry
            }
        }
        throw TestFailure("no inbox.entry for seq \(seq) within \(bound). \(probe.lastLines)")
    }

    /// The node holding the `inbox` lease, by the nodes' logs: the only one that took it more often than it lost it;
    /// nil when that is not one node.
    static func inboxLeaseHolder(_ nodes: [CorkdProcess]) -> Int? {
        let holders = nodes.indices.filter { index in
            let log = nodes[index].standardError
            return log.components(separatedBy: "this node took the inbox lease").count > log.components(separatedBy: "inbox lease lost").count
        }
        return holders.count == 1 ? holders[0] : nil
    }
}
