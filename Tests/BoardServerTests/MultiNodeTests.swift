import BoardCore
import BoardServer
import BoardStore
import BoardTesting
import BoardWire
import Foundation
import Testing

/// Two `corkd` nodes (in-process servers over real TLS) on one PostgreSQL database, writing the same board:
/// seqs come from the database, a node whose commit finds the head moved catches up and applies its ops again, and
/// every node fans out what the others committed (LISTEN/NOTIFY), also after its LISTEN connection is killed.
@Suite(.serialized, .enabled(if: PostgresTestDatabase.isEnabled), .startsProcesses(within: .minutes(3)))
struct MultiNodeTests {
    /// What one client saw: its replica, and the seq of every op of its own that was acknowledged with a change.
    struct ClientRun: Sendable {
        var clientID: String
        var replica: ConvergenceTests.Replica
        var acked: [(mut: UInt64, seq: UInt64)]
        var rejected: [String]
    }

    /// Waits until `count` callers have arrived.
    actor Barrier {
        let count: Int
        var arrived = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
        init(_ count: Int) { self.count = count }

        func arriveAndWait() async {
            arrived += 1
            if arrived == count {
                for waiter in waiting { waiter.resume() }
                waiting = []
                return
            }
            await withCheckedContinuation { waiting.append($0) }
        }
    }

    /// Runs `body` with two nodes serving one fresh database; the second node is given the owner's token (it did not
    /// make the first start).
    static func withTwoNodes<T: Sendable>(
        configure: @escaping @Sendable (inout ServerConfiguration) -> Void = { _ in },
        _ body: @escaping @Sendable (PostgresLocation, TestServer, TestServer) async throws -> T
    ) async throws -> T {
        try await withNodes(2, configure: configure) { location, nodes in try await body(location, nodes[0], nodes[1]) }
    }

    /// Runs `body` with `count` nodes serving one fresh database; every node but the first is given the owner's token
    /// (only the first made the first start).
    static func withNodes<T: Sendable>(
        _ count: Int, configure: @escaping @Sendable (inout ServerConfiguration) -> Void = { _ in },
        _ body: @escaping @Sendable (PostgresLocation, [TestServer]) async throws -> T
    ) async throws -> T {
        try await PostgresTestDatabase.withDatabase { location in
            try await nest(count, location: location, configure: configure, started: [], body)
        }
    }

    /// Starts one more node inside the scope of the ones already started, then runs `body` with all of them.
    private static func nest<T: Sendable>(
        _ count: Int, location: PostgresLocation, configure: @escaping @Sendable (inout ServerConfiguration) -> Void,
        started: [TestServer], _ body: @escaping @Sendable (PostgresLocation, [TestServer]) async throws -> T
    ) async throws -> T {
        guard started.count < count else { return try await body(location, started) }
        return try await withTestServer(store: .postgres(location), configure: configure) { server in
            var node = server
            if let first = started.first { node.ownerToken = first.ownerToken }
            return try await nest(count, location: location, configure: configure, started: started + [node], body)
        }
    }

    /// Reads lines into `replica` until it reaches `seq` (each read bounded by the probe's timeout).
    static func follow(_ probe: WireProbe, _ replica: inout ConvergenceTests.Replica, to seq: UInt64) async throws {
        while (replica.board?.seq ?? 0) < seq {
            guard let line = try await probe.next() else { throw TestFailure("closed before seq \(seq)") }
            try replica.apply(line)
        }
    }

    /// A fresh snapshot of `main` from a node.
    static func snapshot(_ node: TestServer) async throws -> Board {
        let probe = try await node.connect()
        try await probe.send(#"{"type":"subscribe","board":"main","presence":false}"#)
        var replica = ConvergenceTests.Replica()
        try replica.apply(String(data: try JSONSerialization.data(withJSONObject: try await probe.expect(type: "snapshot")), encoding: .utf8)!)
        await probe.close()
        return try #require(replica.board)
    }

    @Test("clients on two nodes write one board at once (a hard WIP limit included): every replica and both nodes converge, seqs 1…N, each acked op once")
    func concurrentWritersOnTwoNodes() async throws {
        try await Self.withTwoNodes(configure: Self.unlimited) { _, one, two in
            try await Self.writeConcurrently(on: [one, two], clients: 4, opsPerClient: 50, descriptions: false)
        }
    }

    @Test("clients spread over three nodes write one board at once (hard WIP limit, description conflicts): every replica equals every node, seqs 1…N, each acked op once")
    func concurrentWritersOnThreeNodes() async throws {
        try await Self.withNodes(3, configure: Self.unlimited) { _, nodes in
            try await Self.writeConcurrently(on: nodes, clients: 6, opsPerClient: 40, descriptions: true)
        }
    }

    /// No rate limit: the writers go flat out.
    @Sendable static func unlimited(_ configuration: inout ServerConfiguration) {
        configuration.limits.rateOpsPerS = 10_000
        configuration.limits.rateBurst = 10_000
    }

    /// Seeds `main` with cards k1…k6 and a hard WIP limit of 2 on DOING, then runs `clients` writers spread over
    /// `nodes` (client i on node i mod n) with random ops at once; checks that every node and every replica ends at
    /// the stored head with the same content hash, the hard WIP limit held, the stored seqs are 1…N, and every
    /// acknowledged op is stored exactly once at the seq its ack named.
    static func writeConcurrently(on nodes: [TestServer], clients: Int, opsPerClient: Int, descriptions: Bool) async throws {
        let first = nodes[0]
        let seed = try await first.connect(clientID: "seed")
        var mut: UInt64 = 0
        for id in (1...6).map({ "k\($0)" }) {
            mut += 1
            try await seed.send(#"{"type":"op","board":"main","mut":\#(mut),"op":{"kind":"card.add","card":"\#(id)","title":"\#(id)"}}"#)
            _ = try await seed.expect(type: "ack")
        }
        mut += 1
        try await seed.send(#"{"type":"op","board":"main","mut":\#(mut),"op":{"kind":"column.wip","column":"doing","limit":2,"hard":true}}"#)
        _ = try await seed.expect(type: "ack")
        await seed.close()

        let barrier = Barrier(clients)
        let store = first.store
        let runs = try await withThrowingTaskGroup(of: ClientRun.self) { group in
            for client in 0..<clients {
                let node = nodes[client % nodes.count]
                group.addTask {
                    try await Self.writeRandomly(
                        on: node, clientID: "mn-\(client)", client: client, ops: opsPerClient, descriptions: descriptions,
                        barrier: barrier, store: store)
                }
            }
            var all: [ClientRun] = []
            for try await run in group { all.append(run) }
            return all
        }
        let head = try #require(try await first.store.boards().first { $0.id == "main" }).seq
        var boards: [Board] = []
        for node in nodes { boards.append(try await Self.snapshot(node)) }
        for (index, board) in boards.enumerated() {
            #expect(board.seq == head, "node \(index) is at the stored head \(head)")
            #expect(board.contentHash == boards[0].contentHash, "node \(index) holds the same board as node 0")
        }
        #expect(boards[0].cards(in: "doing").count <= 2, "the hard WIP limit held across nodes")
        for run in runs {
            let board = try #require(run.replica.board)
            #expect(board.seq == head, "\(run.clientID) reached the head")
            #expect(board.contentHash == boards[0].contentHash, "\(run.clientID) converged")
            #expect(Set(run.replica.seqs).count == run.replica.seqs.count, "\(run.clientID) saw no delta twice")
            #expect(!run.rejected.contains { $0.hasPrefix("internal") || $0.hasPrefix("storage_busy") }, "\(run.clientID): \(run.rejected)")
        }
        // The store: seqs 1…N with no gap, and every acknowledged op exactly once, at the seq its ack named.
        let events = try await first.store.events("main", from: 1, to: head, limit: Int(head) + 10)
        #expect(events.map(\.seq) == Array(1...head), "seqs contiguous")
        var stored: [String: [UInt64]] = [:]
        for event in events {
            if let client = event.clientID, let mut = event.mut { stored["\(client)/\(mut)", default: []].append(event.seq) }
        }
        for run in runs {
            for ack in run.acked {
                #expect(stored["\(run.clientID)/\(ack.mut)"] == [ack.seq], "\(run.clientID) mut \(ack.mut) acked at \(ack.seq)")
            }
        }
        // Every node's clients had ops committed: the board really was written from every node at once.
        for (index, _) in nodes.enumerated() {
            let own = runs.filter { Int($0.clientID.dropFirst(3)).map { $0 % nodes.count } == index }
            #expect(own.allSatisfy { !$0.acked.isEmpty }, "node \(index)'s clients had ops committed")
        }
        let rejects = Dictionary(runs.flatMap(\.rejected).map { ($0, 1) }, uniquingKeysWith: +)
        print("\(nodes.count) nodes, \(clients) clients: head \(head), \(runs.reduce(0) { $0 + $1.acked.count }) acked, rejects \(rejects)")
    }

    /// One writer: subscribes through `node`, sends `ops` random ops one at a time (with `descriptions`, one in four
    /// edits a description with the `base_seq` its replica knows, which another node's edit may have made stale),
    /// applying every line to its replica; then waits for the others and follows the stored head.
    static func writeRandomly(
        on node: TestServer, clientID: String, client: Int, ops: Int, descriptions: Bool, barrier: Barrier,
        store: any AdminStore
    ) async throws -> ClientRun {
        let probe = try await node.connect(clientID: clientID)
        var run = ClientRun(clientID: clientID, replica: ConvergenceTests.Replica(), acked: [], rejected: [])
        try await probe.send(#"{"type":"subscribe","board":"main"}"#)
        var rng = SystemRandomNumberGenerator()
        for n in 1...ops {
            let op: String
            if descriptions, Int.random(in: 0..<4, using: &rng) == 0 {
                let card = "k\(Int.random(in: 1...6, using: &rng))"
                let base = run.replica.board?.cards[CardID(card)]?.descriptionSeq ?? 0
                op = #"{"kind":"card.edit","card":"\#(card)","description":"\#(clientID) at \#(n)","base_seq":\#(base)}"#
            } else {
                op = ConvergenceTests.randomOp(&rng, client: client, n: n)
            }
            try await probe.send(#"{"type":"op","board":"main","mut":\#(n),"op":\#(op)}"#)
            // Read until this op's answer, applying every delta (this node's and the others') on the way.
            while true {
                guard let line = try await probe.next() else { throw TestFailure("\(clientID): closed") }
                try run.replica.apply(line)
                guard line.contains(#""mut":\#(n),"#) || line.contains(#""mut":\#(n)}"#) else { continue }
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                if object["type"] as? String == "ack" {
                    if object["noop"] as? Bool != true, let seq = object["seq"] as? Int {
                        run.acked.append((UInt64(n), UInt64(seq)))
                    }
                    break
                }
                if object["type"] as? String == "reject" {
                    let code = object["code"] as? String ?? "?"
                    run.rejected.append(code == "storage_busy" || code == "internal" ? "\(code): \(object["message"] ?? "")" : code)
                    break
                }
            }
        }
        // Every op of every client is answered: the stored head is final. Follow it to the end.
        await barrier.arriveAndWait()
        let head = try #require(try await store.boards().first { $0.id == "main" }).seq
        try await Self.follow(probe, &run.replica, to: head)
        await probe.close()
        return run
    }

    /// A board made on one node is in the owner's list on the other at once, before that node has loaded it (it
    /// had been left out until something there opened it, and the web page's "your other boards" with it).
    @Test("a board made on one node is listed on the other before that node has loaded it")
    func aBoardMadeElsewhereIsListedBeforeItIsLoaded() async throws {
        try await Self.withTwoNodes { _, first, second in
            let maker = try await first.connect()
            try await maker.send(#"{"type":"board.create","req":1,"board":"qa","name":"QA"}"#)
            _ = try await maker.expect(type: "ok")
            let reader = try await second.connect()
            #expect(try await BoardAdminTests.boards(reader).contains("qa"))
            await maker.close()
            await reader.close()
        }
    }

    @Test("a node whose LISTEN backend is terminated reconnects and catches up by seq: nothing lost, nothing doubled")
    func listenBackendTerminated() async throws {
        let metrics = ServerMetrics()
        // Both nodes count into one registry (each counts its own reconnect).
        try await Self.withTwoNodes(configure: { configuration in
            configuration.listenRetryDelay = .seconds(1)
            configuration.metrics = metrics
        }) { location, one, two in
            let writer = try await one.connect(clientID: "writer")
            let reader = try await two.connect(clientID: "reader")
            try await reader.send(#"{"type":"subscribe","board":"main","presence":false}"#)
            var replica = ConvergenceTests.Replica()
            var mut: UInt64 = 0
            func write(_ count: Int) async throws -> UInt64 {
                var last: UInt64 = 0
                for _ in 0..<count {
                    mut += 1
                    try await writer.send(#"{"type":"op","board":"main","mut":\#(mut),"op":{"kind":"card.add","card":"w\#(mut)","title":"w\#(mut)"}}"#)
                    let ack = try await writer.expect(type: "ack")
                    last = UInt64(try #require(ack["seq"] as? Int))
                }
                return last
            }
            // Live: node two fans out node one's commit.
            try await Self.follow(reader, &replica, to: try await write(1))

            // Each node opens two LISTEN connections (heads and presence) as it starts; on a busy machine the last
            // may still be on its way.
            var listening = 0
            let listenDeadline = ContinuousClock.now + .seconds(60)
            while listening < 4, ContinuousClock.now < listenDeadline {
                listening = try await PostgresTestDatabase.listeners(on: location)
                if listening < 4 { try await Task.sleep(for: .milliseconds(100)) }
            }
            let ended = try await PostgresTestDatabase.terminateListeners(on: location)
            #expect(ended == 4, "each node had two LISTEN backends (heads and presence)")
            // Committed while node two's LISTEN connection is down (it waits a second before reconnecting): their
            // announcements are lost; node two must find them by seq once it listens again.
            let during = try await write(5)
            try await Self.follow(reader, &replica, to: during)
            // And live again afterwards.
            try await Self.follow(reader, &replica, to: try await write(2))
            #expect(replica.seqs == Array(1...mut), "every seq once, in order, after the snapshot at 0")
            // Node two's reconnect is behind the follow above; node one's is not waited for by anything else (a
            // loaded run read the counter at 1 before node one's retry, a second after the terminate, had counted).
            let deadline = ContinuousClock.now + .seconds(20)
            while (metrics.value(of: "corkd_listen_reconnects_total") ?? 0) < 2, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect((metrics.value(of: "corkd_listen_reconnects_total") ?? 0) >= 2, "both nodes listened again")
            let board = try #require(replica.board)
            #expect(board.contentHash == (try await Self.snapshot(one)).contentHash)
            await writer.close()
            await reader.close()
        }
    }
}
