import Testing

@testable import BoardCore

@Suite struct SnapshotTests {
    @Test func listsColumnsInBoardOrderAndCardsInPositionOrder() {
        var fixture = SnapshotFixture(todo: ["a", "b"], done: ["z"])
        // Same rank as "a": the id breaks the tie, so "a0" sorts right after "a".
        fixture.add("a0", to: "todo", rank: fixture.board.cards["a"]!.rank)
        fixture.board.columns.swapAt(0, 2)
        let snapshot = fixture.snapshot
        #expect(snapshot.columns.map(\.column.id) == ["done", "doing", "todo"])
        #expect(SnapshotFixture.ids(snapshot, "todo") == ["a", "a0", "b"])
        #expect(SnapshotFixture.ids(snapshot, "done") == ["z"])
        #expect(snapshot.column("doing")?.cards == [])
        #expect(snapshot.columns[0].column == Column(id: "done", name: "DONE"))
    }

    @Test func carriesTheBoardSeq() {
        var fixture = SnapshotFixture(todo: ["a"])
        fixture.board.seq = 42
        #expect(fixture.snapshot.seq == 42)
    }

    @Test func leavesOutArchivedCardsByDefault() {
        var fixture = SnapshotFixture(todo: ["a", "b", "c"])
        fixture.edit("b") { $0.archived = true }
        #expect(SnapshotFixture.ids(fixture.snapshot, "todo") == ["a", "c"])
        #expect(SnapshotFixture.ids(fixture.board.snapshot(where: { _ in true }), "todo") == ["a", "b", "c"])
    }

    @Test func keepsOnlyCardsThePredicateAccepts() {
        var fixture = SnapshotFixture(todo: ["a", "b"], doing: ["c"])
        fixture.edit("b") { $0.closed = true }
        fixture.edit("c") { $0.closed = true }
        let snapshot = fixture.board.snapshot(where: { $0.closed })
        #expect(SnapshotFixture.ids(snapshot, "todo") == ["b"])
        #expect(SnapshotFixture.ids(snapshot, "doing") == ["c"])
        #expect(snapshot.columns.count == 3)
    }

    @Test func leavesOutCardsOfUnknownColumns() {
        var fixture = SnapshotFixture(todo: ["a"])
        fixture.edit("a") { $0.column = "nowhere" }
        #expect(fixture.snapshot.columns.allSatisfy { $0.cards.isEmpty })
    }

    @Test func orderDiffKeepsALongestRunInOrder() {
        #expect(OrderDiff.longestIncreasingRun([3, 0, 1, 2]) == [1, 2, 3])
        #expect(OrderDiff.longestIncreasingRun([]) == [])
        #expect(OrderDiff.longestIncreasingRun([2, 1, 0]).count == 1)
        let diff = OrderDiff(from: ["a", "b", "c", "d"], to: ["b", "c", "d", "a", "e"])
        #expect(diff.removed == [0])
        #expect(diff.inserted == [3, 4])
        #expect(diff.kept.map(\.old) == [1, 2, 3])
        #expect(diff.kept.map(\.new) == [0, 1, 2])
    }
}
