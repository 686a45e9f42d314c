import BoardCore
import Testing
@testable import BoardWire

/// The deltas in Protocol.md are what BoardCore's reducer really produces: replaying them on the doc's snapshot
/// gives the same activity records, as a replica would.
@Suite struct ReplayTests {
    /// The doc's first snapshot, and its deltas by seq (a seq shown twice must be the same delta).
    static func docBoard(_ checked: [ConformanceTests.Checked]) throws -> (ServerMessage.Snapshot, [UInt64: ServerMessage.Delta]) {
        let snapshots = checked.compactMap { item -> ServerMessage.Snapshot? in
            if case .snapshot(let s)? = item.server { return s }
            return nil
        }
        let snapshot = try #require(snapshots.first)
        var deltas: [UInt64: ServerMessage.Delta] = [:]
        for item in checked {
            guard case .delta(let d)? = item.server, d.board == snapshot.board else { continue }
            if let earlier = deltas[d.seq] {
                #expect(earlier == d, "Protocol.md:\(item.line.number): two different deltas with seq \(d.seq)")
            }
            deltas[d.seq] = d
        }
        return (snapshot, deltas)
    }

    @Test func docDeltasReplayOnTheDocSnapshot() throws {
        let (snapshot, deltas) = try Self.docBoard(ConformanceTests.roundTripAll(try ProtocolDoc.load()))
        var board = snapshot.state
        #expect(board.seq == snapshot.seq)
        var replayed = 0
        while let delta = deltas[board.seq + 1] {
            let role = try #require(board.members[delta.actor]?.role, "actor \(delta.actor) is not a member")
            let context = ApplyContext(actor: delta.actor, role: role, now: delta.at, seq: delta.seq)
            switch board.applying(delta.op, context: context) {
            case .success(let change):
                var activity = change.activity
                activity.undoOf = delta.activity.undoOf
                // A delta carries its record without `names`; the reducer computes them for the receiver.
                activity.names = nil
                #expect(activity == delta.activity, "seq \(delta.seq): the reducer's activity differs from the doc's")
                #expect(!change.isNoop)
                board = change.board
            case .failure(let rejection):
                Issue.record("seq \(delta.seq): the reducer rejects the doc's op: \(rejection)")
                return
            }
            replayed += 1
        }
        #expect(replayed >= 8, "only \(replayed) consecutive deltas follow the snapshot")
    }

    /// Every `hash` in a `subscribed` example is the board hash (Protocol.md, "Board hash") of the doc's snapshot
    /// replayed to that seq, and so is the hash the "Board hash" section quotes.
    @Test func docBoardHashesAreTheHashesOfTheDocBoard() throws {
        let doc = try ProtocolDoc.load()
        let checked = ConformanceTests.roundTripAll(doc)
        let (snapshot, deltas) = try Self.docBoard(checked)
        var boards: [UInt64: Board] = [snapshot.seq: snapshot.state]
        var board = snapshot.state
        while let delta = deltas[board.seq + 1] {
            let context = ApplyContext(actor: delta.actor, role: .owner, now: delta.at, seq: delta.seq)
            guard case .success(let change) = board.applying(delta.op, context: context) else { break }
            board = change.board
            boards[board.seq] = board
        }
        var hashed = 0
        for item in checked {
            guard case .subscribed(let subscribed)? = item.server, let hash = subscribed.hash else { continue }
            let at = try #require(boards[subscribed.seq], "Protocol.md:\(item.line.number): no doc board at seq \(subscribed.seq)")
            #expect(hash == at.protocolHash, "Protocol.md:\(item.line.number): the board at seq \(subscribed.seq) hashes to \(at.protocolHash)")
            hashed += 1
        }
        #expect(hashed >= 3, "only \(hashed) subscribed examples carry a hash")
        let quoted = doc.lines.joined(separator: "\n")
        #expect(quoted.contains("at seq 9 hashes to\n`\(try #require(boards[9]).protocolHash)`"))
    }
}
