import BoardCore
import Testing
@testable import BoardWire

/// The deltas in Protocol.md are what BoardCore's reducer really produces: replaying them on the doc's snapshot
/// gives the same activity records, as a replica would.
@Suite struct ReplayTests {
    @Test func docDeltasReplayOnTheDocSnapshot() throws {
        let checked = ConformanceTests.roundTripAll(try ProtocolDoc.load())
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
}
