import BoardCore
import BoardServer
import BoardStore
import BoardTesting
import BoardWire
import Foundation
import Testing

/// Two `corkd` nodes (in-process servers over real TLS) on one PostgreSQL database, writing the same board (issue 13):
/// seqs come from the database, a node whose commit finds the head moved catches up and applies its ops again, and
/// every node fans out what the others committed (LISTEN/NOTIFY), also after its LISTEN connection is killed.
@Suite(.serialized, .enabled(if: PostgresTestDatabase.isEnabled), .timeLimit(.minutes(3)))
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
        try await PostgresTestDatabase.withDatabase { location in
            try await withTestServer(store: .postgres(location), configure: configure) { one in
                try await withTestServer(store: .postgres(location), configure: configure) { second in
                    var two = second
                    two.ownerToken = one.ownerToken
                    return try await body(location, one, two)
                }
            }
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
        try await Self.withTwoNodes(configure: { $0.limits.rateOpsPerS = 10_000; $0.limits.rateBurst = 10_000 }) { _, one, two in
            let seed = try await one.connect(clientID: "seed")
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

            let clients = 4
            let opsPerClient = 50
            let barrier = Barrier(clients)
            let store = one.store
            let runs = try await withThrowingTaskGroup(of: ClientRun.self) { group in
                for client in 0..<clients {
                    let node = client % 2 == 0 ? one : two
                    group.addTask {
                        let clientID = "mn-\(client)"
                        let probe = try await node.connect(clientID: clientID)
                        var run = ClientRun(clientID: clientID, replica: ConvergenceTests.Replica(), acked: [], rejected: [])
                        try await probe.send(#"{"type":"subscribe","board":"main"}"#)
                        var rng = SystemRandomNumberGenerator()
                        for n in 1...opsPerClient {
                            try await probe.send(
                                #"{"type":"op","board":"main","mut":\#(n),"op":\#(ConvergenceTests.randomOp(&rng, client: client, n: n))}"#)
                            // Read until this op's answer, applying every delta (this node's and the other's) on the way.
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
                }
                var all: [ClientRun] = []
                for try await run in group { all.append(run) }
                return all
            }
            let head = try #require(try await one.store.boards().first { $0.id == "main" }).seq
            let boards = [try await Self.snapshot(one), try await Self.snapshot(two)]
            #expect(boards[0].seq == head && boards[1].seq == head, "both nodes are at the stored head \(head)")
            #expect(boards[0].contentHash == boards[1].contentHash, "both nodes hold the same board")
            #expect(boards[0].cards(in: "doing").count <= 2, "the hard WIP limit held across nodes")
            for run in runs {
                let board = try #require(run.replica.board)
                #expect(board.seq == head, "\(run.clientID) reached the head")
                #expect(board.contentHash == boards[0].contentHash, "\(run.clientID) converged")
                #expect(Set(run.replica.seqs).count == run.replica.seqs.count, "\(run.clientID) saw no delta twice")
                #expect(!run.rejected.contains { $0.hasPrefix("internal") || $0.hasPrefix("storage_busy") }, "\(run.clientID): \(run.rejected)")
            }
            // The store: seqs 1…N with no gap, and every acknowledged op exactly once, at the seq its ack named.
            let events = try await one.store.events("main", from: 1, to: head, limit: Int(head) + 10)
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
            // Both nodes' clients had ops committed: the board really was written from two nodes at once.
            #expect(runs.filter { $0.clientID == "mn-1" || $0.clientID == "mn-3" }.allSatisfy { !$0.acked.isEmpty })
            #expect(runs.filter { $0.clientID == "mn-0" || $0.clientID == "mn-2" }.allSatisfy { !$0.acked.isEmpty })
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

            let ended = try await PostgresTestDatabase.terminateListeners(on: location)
            #expect(ended == 2, "each node had one LISTEN backend")
            // Committed while node two's LISTEN connection is down (it waits a second before reconnecting): their
            // announcements are lost; node two must find them by seq once it listens again.
            let during = try await write(5)
            try await Self.follow(reader, &replica, to: during)
            // And live again afterwards.
            try await Self.follow(reader, &replica, to: try await write(2))
            #expect(replica.seqs == Array(1...mut), "every seq once, in order, after the snapshot at 0")
            #expect((metrics.value(of: "corkd_listen_reconnects_total") ?? 0) >= 2, "both nodes listened again")
            let board = try #require(replica.board)
            #expect(board.contentHash == (try await Self.snapshot(one)).contentHash)
            await writer.close()
            await reader.close()
        }
    }
}
