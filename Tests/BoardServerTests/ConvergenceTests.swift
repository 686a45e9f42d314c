import BoardTesting
import BoardCore
import BoardWire
import Foundation
import Testing

/// Several clients edit the same cards at once over real TLS; every replica ends with the server's board hash.
@Suite(.timeLimit(.minutes(2))) struct ConvergenceTests {
    /// A replica built the way a client library builds one: a snapshot, then each delta through the reducer.
    struct Replica {
        var board: Board?
        var seqs: [UInt64] = []

        mutating func apply(_ line: String) throws {
            switch try LineCoder().decodeServer(Array(line.utf8)) {
            case .snapshot(let snapshot):
                board = snapshot.state
                board?.seq = snapshot.seq
            case .delta(let delta):
                guard var current = board else { throw TestFailure("delta before snapshot") }
                seqs.append(delta.seq)
                guard delta.seq == current.seq + 1 else { throw TestFailure("gap: at \(current.seq), got \(delta.seq)") }
                let context = ApplyContext(actor: delta.actor, role: .owner, now: delta.at, seq: delta.seq)
                if case .failure(let rejection) = current.apply(delta.op, context: context) {
                    throw TestFailure("the replica refused delta \(delta.seq): \(rejection)")
                }
                board = current
            default:
                break
            }
        }
    }

    static func randomOp(_ rng: inout SystemRandomNumberGenerator, client: Int, n: Int) -> String {
        let cards = (1...6).map { "k\($0)" }
        let card = cards.randomElement(using: &rng)!
        let columns = ["todo", "doing", "done"]
        switch Int.random(in: 0..<7, using: &rng) {
        case 0: return #"{"kind":"card.add","card":"c\#(client)-\#(n)","title":"from \#(client) #\#(n)"}"#
        case 1, 2:
            let after = cards.randomElement(using: &rng)!
            return #"{"kind":"card.move","card":"\#(card)","to_column":"\#(columns.randomElement(using: &rng)!)","after":"\#(after)"}"#
        case 3: return #"{"kind":"card.move","card":"\#(card)","to_column":"\#(columns.randomElement(using: &rng)!)","index":\#(Int.random(in: 0..<4, using: &rng))}"#
        case 4: return #"{"kind":"card.edit","card":"\#(card)","title":"edited by \#(client) at \#(n)"}"#
        case 5: return Bool.random(using: &rng) ? #"{"kind":"card.archive","card":"\#(card)"}"# : #"{"kind":"card.restore","card":"\#(card)"}"#
        default: return #"{"kind":"card.close","card":"\#(card)"}"#
        }
    }

    @Test func fourClientsEditingTheSameCardsConverge() async throws {
        try await withTestServer(configure: { $0.limits.rateOpsPerS = 10_000; $0.limits.rateBurst = 10_000 }) { server in
            let seed = try await server.connect()
            for (i, id) in (1...6).map({ "k\($0)" }).enumerated() {
                try await seed.send(#"{"type":"op","board":"main","mut":\#(i + 1),"op":{"kind":"card.add","card":"\#(id)","title":"\#(id)"}}"#)
                _ = try await seed.expect(type: "ack")
            }
            let opsPerClient = 60
            let replicas = try await withThrowingTaskGroup(of: Replica.self) { group in
                for client in 0..<4 {
                    group.addTask {
                        let probe = try await server.connect(clientID: "conv-\(client)")
                        var replica = Replica()
                        try await probe.send(#"{"type":"subscribe","board":"main"}"#)
                        var rng = SystemRandomNumberGenerator()
                        for n in 1...opsPerClient {
                            try await probe.send(#"{"type":"op","board":"main","mut":\#(n),"op":\#(Self.randomOp(&rng, client: client, n: n))}"#)
                            // Read until this op's ack or reject, applying every delta on the way.
                            while true {
                                guard let line = try await probe.next() else { throw TestFailure("closed") }
                                try replica.apply(line)
                                if line.contains(#""mut":\#(n)"#) && (line.contains(#""type":"ack""#) || line.contains(#""type":"reject""#)) { break }
                            }
                        }
                        // Drain to the board's head: a ping is answered after everything already queued.
                        try await probe.send(#"{"type":"ping","req":"drained"}"#)
                        while let line = try await probe.next(), !line.contains("drained") { try replica.apply(line) }
                        await probe.close()
                        return replica
                    }
                }
                var all: [Replica] = []
                for try await replica in group { all.append(replica) }
                return all
            }
            // The server's board, from a fresh snapshot.
            try await seed.send(#"{"type":"subscribe","board":"main"}"#)
            var reference = Replica()
            try reference.apply(String(data: try JSONSerialization.data(withJSONObject: try await seed.expect(type: "snapshot")), encoding: .utf8)!)
            let head = try #require(reference.board)
            for (i, replica) in replicas.enumerated() {
                var board = try #require(replica.board)
                // Clients that finished early catch up from the server's log.
                if board.seq < head.seq {
                    let probe = try await server.connect()
                    // fetch needs a subscription; one without presence is enough.
                    try await probe.send(#"{"type":"subscribe","board":"main","presence":false}"#)
                    _ = try await probe.expect(type: "presence.state", skipping: ["snapshot", "subscribed", "ping"])
                    try await probe.send(#"{"type":"fetch","board":"main","from":\#(board.seq + 1),"to":\#(head.seq)}"#)
                    var catchUp = Replica(board: board)
                    while let line = try await probe.next(), !line.contains(#""type":"ok""#) { try catchUp.apply(line) }
                    board = try #require(catchUp.board)
                    await probe.close()
                }
                #expect(board.seq == head.seq, "replica \(i)")
                #expect(board.contentHash == head.contentHash, "replica \(i) converged")
                #expect(Set(replica.seqs).count == replica.seqs.count, "replica \(i) saw no duplicate")
            }
            // Many random ops are no-ops (closing a closed card) or rejected (moving an archived card); still, the
            // clients must have changed the board a lot concurrently for the test to mean anything.
            #expect(head.seq >= 6 + UInt64(opsPerClient), "enough concurrent changes were accepted")
            await seed.close()
        }
    }
}
