import BoardClient
import BoardCore
import BoardWire
import Testing

/// Replicas of one process that share their confirmed boards (the server's web sessions): a delta is applied by the
/// first replica that reaches its seq, and the others take that board instead of applying it again.
@Suite struct SharedBoardsTests {
    static func replica(_ shared: SharedBoards, user: UserID = "bob") -> Replica {
        var replica = Replica(board: "main", user: user, shared: shared)
        replica.clientID = ClientID("c-\(user)")
        _ = replica.load(ReplicaTests.board(), seq: 1, epoch: "e1")
        return replica
    }

    @Test func theSecondReplicaTakesTheBoardTheFirstMade() throws {
        let shared = SharedBoards()
        var first = Self.replica(shared)
        var second = Self.replica(shared, user: "alice")
        let delta = ReplicaTests.delta(.editCard(EditCard(card: "c1", title: "Renamed")), seq: 2, on: first.confirmed!)
        _ = first.receive(delta)
        #expect(shared.board("main", epoch: "e1", seq: 2) == first.confirmed)

        // Mark the shared board so that taking it shows: a replica that applied the delta itself would not have
        // this title.
        var marked = try #require(shared.board("main", epoch: "e1", seq: 2))
        marked.cards["c1"]?.title = "made once"
        shared.offer(marked, epoch: "e1")  // not newer: kept as it was
        #expect(shared.board("main", epoch: "e1", seq: 2)?.cards["c1"]?.title == "Renamed")
        shared.forget("main")
        shared.offer(marked, epoch: "e1")

        let result = second.receive(delta)
        #expect(result.applied.map(\.seq) == [2])
        #expect(result.changes == BoardChanges.of(delta.op, on: ReplicaTests.board()))
        #expect(second.confirmed?.cards["c1"]?.title == "made once")
        #expect(second.seq == 2)
    }

    @Test func aBoardOfAnotherEpochOrSeqIsNotTaken() {
        let shared = SharedBoards()
        var base = ReplicaTests.board()
        base.name = "elsewhere"
        base.seq = 2
        shared.offer(base, epoch: "e0")
        var replica = Self.replica(shared)
        let delta = ReplicaTests.delta(.editCard(EditCard(card: "c1", title: "Renamed")), seq: 2, on: replica.confirmed!)
        _ = replica.receive(delta)
        #expect(replica.confirmed?.name == "Main", "the board of epoch e0 was not taken")
        #expect(replica.confirmed?.cards["c1"]?.title == "Renamed")
        #expect(shared.board("main", epoch: "e1", seq: 2) == replica.confirmed, "and the replica's own is offered")
    }

    @Test func aSnapshotAtTheSharedSeqTakesTheSharedBoard() {
        let shared = SharedBoards()
        var marked = ReplicaTests.board()
        marked.name = "shared"
        marked.seq = 1
        shared.offer(marked, epoch: "e1")
        let replica = Self.replica(shared)
        #expect(replica.confirmed?.name == "shared")
        #expect(replica.view?.name == "shared")
    }

    @Test func showsConfirmedOnlyWithoutAnOpOnTop() {
        var replica = Self.replica(SharedBoards())
        #expect(replica.showsConfirmed)
        replica.enqueue(PendingOp(board: "main", mut: 1, request: .undo(seq: 1)), now: ReplicaTests.t0)
        #expect(replica.showsConfirmed, "an undo changes nothing before its delta")
        replica.enqueue(PendingOp(board: "main", mut: 2, request: .op(.closeCard(card: "c1"))), now: ReplicaTests.t0)
        #expect(!replica.showsConfirmed)
    }
}
