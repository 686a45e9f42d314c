import Testing

@testable import BoardCore

private typealias Diff = SnapshotDiff

/// Diffs `old` to `new`, checks that applying the diff to `old` gives `new`, and returns the diff.
private func roundTrip(
    _ old: BoardSnapshot, _ new: BoardSnapshot, sourceLocation: SourceLocation = #_sourceLocation
) -> SnapshotDiff {
    let diff = SnapshotDiff(from: old, to: new)
    #expect(
        old.applying(diff) == new, "applying the diff does not give the new snapshot", sourceLocation: sourceLocation)
    return diff
}

@Suite struct SnapshotDiffTests {
    // MARK: Cards

    @Test func equalSnapshotsGiveAnEmptyDiff() {
        let snapshot = SnapshotFixture(todo: ["a", "b"], doing: ["c"]).snapshot
        let diff = roundTrip(snapshot, snapshot)
        #expect(diff.isEmpty)
        #expect(diff == SnapshotDiff(seq: snapshot.seq))
    }

    @Test func aNewSeqAloneLeavesTheDiffEmptyButIsCarried() {
        var fixture = SnapshotFixture(todo: ["a"])
        let old = fixture.snapshot
        fixture.board.seq += 5
        let diff = roundTrip(old, fixture.snapshot)
        #expect(diff.isEmpty)
        #expect(diff.seq == old.seq + 5)
        #expect(old.applying(diff)?.seq == old.seq + 5)
    }

    @Test func insertsOneCardAtItsNewIndex() {
        var fixture = SnapshotFixture(todo: ["a", "b", "c"])
        let old = fixture.snapshot
        fixture.add("x", to: "todo", at: 2)
        let diff = roundTrip(old, fixture.snapshot)
        let x = fixture.board.cards["x"]!
        #expect(diff.changes == ["todo": .init(inserted: [.init(index: 2, card: x)])])
        #expect(diff.moves.isEmpty && diff.updated.isEmpty && diff.cardChangeCount == 1)
        #expect(!diff.isEmpty)
    }

    @Test func deletesOneCardAtItsOldIndex() {
        var fixture = SnapshotFixture(todo: ["a", "b", "c"], done: ["d"])
        let old = fixture.snapshot
        fixture.delete("b")
        let diff = roundTrip(old, fixture.snapshot)
        #expect(diff.changes == ["todo": .init(deleted: [.init(index: 1, id: "b")])])
        #expect(diff.cardChangeCount == 1)
    }

    @Test func reorderingWithinAColumnIsOneMove() {
        var fixture = SnapshotFixture(todo: ["a", "b", "c", "d"])
        let old = fixture.snapshot
        fixture.move("a", to: "todo", at: 3)
        let new = fixture.snapshot
        #expect(SnapshotFixture.ids(new, "todo") == ["b", "c", "d", "a"])
        let diff = roundTrip(old, new)
        let a = fixture.board.cards["a"]!
        #expect(diff.moves == [.init(card: a, fromColumn: "todo", fromIndex: 0, toColumn: "todo", toIndex: 3)])
        #expect(diff.changes.isEmpty && diff.updated.isEmpty)
    }

    @Test func movingAcrossColumnsIsOneMove() {
        var fixture = SnapshotFixture(todo: ["a", "b", "c"], doing: ["d", "e"])
        let old = fixture.snapshot
        fixture.move("b", to: "doing", at: 1)
        let diff = roundTrip(old, fixture.snapshot)
        let b = fixture.board.cards["b"]!
        #expect(b.column == "doing")
        #expect(diff.moves == [.init(card: b, fromColumn: "todo", fromIndex: 1, toColumn: "doing", toIndex: 1)])
        #expect(diff.moves.first?.id == "b")
        #expect(diff.changes.isEmpty && diff.updated.isEmpty)
    }

    @Test func editingACardIsOneUpdateWithItsNewValue() {
        var fixture = SnapshotFixture(todo: ["a", "b"])
        let old = fixture.snapshot
        fixture.edit("b") { $0.title = "renamed" }
        let diff = roundTrip(old, fixture.snapshot)
        #expect(diff.updated.map(\.title) == ["renamed"])
        #expect(diff.updated.map(\.id) == ["b"])
        #expect(diff.changes.isEmpty && diff.moves.isEmpty)
    }

    @Test func aMovedAndEditedCardIsOneMoveAndOneUpdate() {
        var fixture = SnapshotFixture(todo: ["a", "b"], doing: ["c"])
        let old = fixture.snapshot
        fixture.move("a", to: "doing", at: 1)
        fixture.edit("a") { $0.closed = true }
        let diff = roundTrip(old, fixture.snapshot)
        let a = fixture.board.cards["a"]!
        #expect(diff.moves == [.init(card: a, fromColumn: "todo", fromIndex: 0, toColumn: "doing", toIndex: 1)])
        #expect(diff.updated == [a])
        #expect(diff.changes.isEmpty)
    }

    @Test func aRankChangeInPlaceIsAnUpdate() {
        var fixture = SnapshotFixture(todo: ["a", "b", "c"])
        let old = fixture.snapshot
        // Re-key the column: every rank changes, the order does not.
        for (id, rank) in zip(["a", "b", "c"], Rank.evenlySpaced(count: 100)) {
            fixture.edit(id) { $0.rank = rank }
        }
        let diff = roundTrip(old, fixture.snapshot)
        #expect(diff.updated.map(\.id) == ["a", "b", "c"])
        #expect(diff.moves.isEmpty && diff.changes.isEmpty)
    }

    @Test func archivingAndRestoringFollowTheFilter() {
        var fixture = SnapshotFixture(todo: ["a", "b", "c"])
        let old = fixture.snapshot
        let oldAll = fixture.board.snapshot(where: { _ in true })
        fixture.edit("b") { $0.archived = true }
        let archived = roundTrip(old, fixture.snapshot)
        #expect(archived.changes == ["todo": .init(deleted: [.init(index: 1, id: "b")])])
        #expect(archived.cardChangeCount == 1)
        // Showing archived cards too, archiving is an edit.
        let shown = roundTrip(oldAll, fixture.board.snapshot(where: { _ in true }))
        #expect(shown.updated.map(\.id) == ["b"] && shown.cardChangeCount == 1)
        // Restoring brings it back at its old place.
        let restored = roundTrip(fixture.snapshot, old)
        #expect(restored.changes == ["todo": .init(inserted: [.init(index: 1, card: old.columns[0].cards[1])])])
    }

    @Test func aMixedEditGivesExactIndices() {
        var fixture = SnapshotFixture(todo: ["a", "b", "c", "d", "e"], doing: ["f"])
        let old = fixture.snapshot
        fixture.delete("b")
        fixture.move("c", to: "doing", at: 0)
        fixture.move("a", to: "todo", at: 2)
        fixture.add("x", to: "todo", at: 1)
        fixture.edit("e") { $0.title = "edited" }
        let new = fixture.snapshot
        #expect(SnapshotFixture.ids(new, "todo") == ["d", "x", "e", "a"])
        #expect(SnapshotFixture.ids(new, "doing") == ["c", "f"])
        let diff = roundTrip(old, new)
        let card = { (id: CardID) in fixture.board.cards[id]! }
        #expect(
            diff.changes == [
                "todo": .init(deleted: [.init(index: 1, id: "b")], inserted: [.init(index: 1, card: card("x"))])
            ])
        #expect(
            diff.moves == [
                .init(card: card("a"), fromColumn: "todo", fromIndex: 0, toColumn: "todo", toIndex: 3),
                .init(card: card("c"), fromColumn: "todo", fromIndex: 2, toColumn: "doing", toIndex: 0),
            ])
        #expect(diff.updated == [card("e")])
        #expect(diff.removedColumns.isEmpty && diff.insertedColumns.isEmpty && diff.movedColumns.isEmpty)
    }

    @Test func movingOneCardInABigColumnIsOneMove() {
        let ids = (0..<200).map { "c\($0)" }
        var fixture = SnapshotFixture(todo: ids)
        let old = fixture.snapshot
        fixture.move("c10", to: "todo", at: 150)
        let diff = roundTrip(old, fixture.snapshot)
        #expect(diff.moves.count == 1)
        #expect(diff.moves.first.map { [$0.fromIndex, $0.toIndex] } == [10, 150])
        #expect(diff.cardChangeCount == 1)
    }

    @Test func reversingAColumnKeepsOneCard() {
        let ids = (0..<30).map { "c\($0)" }
        var fixture = SnapshotFixture(todo: ids)
        let old = fixture.snapshot
        for (id, rank) in zip(ids.reversed(), Rank.evenlySpaced(count: ids.count)) {
            fixture.edit(id) { $0.rank = rank }
        }
        let new = fixture.snapshot
        #expect(SnapshotFixture.ids(new, "todo") == ids.reversed())
        let diff = roundTrip(old, new)
        // Every card's rank changed, so the one card that stays is an update; the other 29 are moves.
        #expect(diff.moves.count == 29)
        #expect(diff.updated.count == 1)
        #expect(diff.changes.isEmpty)
    }

    @Test func aLargeShuffleStillAppliesExactly() {
        let ids = (0..<3000).map { "c\($0)" }
        // A fixed permutation: i -> i * 7 mod 3001 - 1 visits 0..<3000 once each (3001 is prime).
        let shuffled = (1...3000).map { ids[($0 * 7) % 3001 - 1] }
        let old = SnapshotFixture(todo: ids).snapshot
        var fixture = SnapshotFixture(todo: Array(shuffled.prefix(1500)), doing: Array(shuffled.suffix(1500)))
        fixture.board.seq = 9
        let diff = roundTrip(old, fixture.snapshot)
        #expect(diff.changes.isEmpty)
        #expect(diff.moves.count >= 1500)
    }

    // MARK: Columns

    @Test func addingAColumnInsertsItEmptyAndItsCardsArrive() {
        var fixture = SnapshotFixture(todo: ["a", "b"], done: ["c"])
        let old = fixture.snapshot
        fixture.board.columns.insert(Column(id: "review", name: "REVIEW"), at: 2)
        fixture.move("b", to: "review", at: 0)
        fixture.add("n", to: "review", at: 1)
        let diff = roundTrip(old, fixture.snapshot)
        #expect(diff.insertedColumns == [.init(index: 2, column: Column(id: "review", name: "REVIEW"))])
        #expect(diff.moves.map { [$0.fromColumn, $0.toColumn] } == [["todo", "review"]])
        #expect(diff.changes == ["review": .init(inserted: [.init(index: 1, card: fixture.board.cards["n"]!)])])
        #expect(diff.removedColumns.isEmpty && diff.movedColumns.isEmpty && diff.updatedColumns.isEmpty)
    }

    @Test func removingAColumnListsItsCardsAsDeletedOrMovedAway() {
        var fixture = SnapshotFixture(todo: ["a"], doing: ["c", "f"])
        let old = fixture.snapshot
        fixture.move("c", to: "done", at: 0)
        fixture.board.columns.remove(at: 1)
        let diff = roundTrip(old, fixture.snapshot)
        #expect(diff.removedColumns == [.init(index: 1, id: "doing")])
        #expect(diff.changes == ["doing": .init(deleted: [.init(index: 1, id: "f")])])
        #expect(
            diff.moves == [
                .init(card: fixture.board.cards["c"]!, fromColumn: "doing", fromIndex: 0, toColumn: "done", toIndex: 0)
            ])
    }

    @Test func renamingAColumnOrChangingItsLimitIsAColumnUpdate() {
        var fixture = SnapshotFixture(doing: ["a"])
        let old = fixture.snapshot
        fixture.board.columns[1].name = "WIP"
        fixture.board.columns[2].wip = WIPLimit(limit: 3, hard: true)
        let diff = roundTrip(old, fixture.snapshot)
        #expect(
            diff.updatedColumns == [
                Column(id: "doing", name: "WIP"), Column(id: "done", name: "DONE", wip: WIPLimit(limit: 3, hard: true)),
            ])
        #expect(diff.cardChangeCount == 0 && diff.movedColumns.isEmpty && !diff.isEmpty)
    }

    @Test func reorderingColumnsIsOneColumnMoveAndNoCardChanges() {
        var fixture = SnapshotFixture(todo: ["a", "b"], doing: ["c"], done: ["d"])
        let old = fixture.snapshot
        let done = fixture.board.columns.remove(at: 2)
        fixture.board.columns.insert(done, at: 0)
        let diff = roundTrip(old, fixture.snapshot)
        #expect(diff.movedColumns == [.init(id: "done", fromIndex: 2, toIndex: 0)])
        #expect(diff.cardChangeCount == 0)
        #expect(diff.removedColumns.isEmpty && diff.insertedColumns.isEmpty && diff.updatedColumns.isEmpty)
    }

    @Test func repeatedCardIdsStillApplyExactly() {
        let a = SnapshotFixture.card("a")
        let columns = Board.defaultColumns
        let old = BoardSnapshot(seq: 1, columns: [.init(column: columns[0], cards: [a, a])])
        let new = BoardSnapshot(
            seq: 2, columns: [.init(column: columns[0], cards: [a]), .init(column: columns[1], cards: [a])])
        let diff = roundTrip(old, new)
        #expect(diff.moves.isEmpty)
        #expect(diff.changes["todo"]?.deleted.count == 2)
    }

    // MARK: Diffs that do not fit

    @Test func applyingRejectsADiffThatDoesNotFit() {
        let snapshot = SnapshotFixture(todo: ["a", "b", "c"]).snapshot
        let a = snapshot.columns[0].cards[0]
        let seq = snapshot.seq
        let misfits: [(String, SnapshotDiff)] = [
            ("index out of range", Diff(seq: seq, changes: ["todo": .init(deleted: [.init(index: 3, id: "c")])])),
            ("wrong id at index", Diff(seq: seq, changes: ["todo": .init(deleted: [.init(index: 0, id: "b")])])),
            ("unknown column", Diff(seq: seq, changes: ["nope": .init(deleted: [.init(index: 0, id: "a")])])),
            (
                "index removed twice",
                Diff(
                    seq: seq, changes: ["todo": .init(deleted: [.init(index: 0, id: "a")])],
                    moves: [.init(card: a, fromColumn: "todo", fromIndex: 0, toColumn: "done", toIndex: 0)])
            ),
            (
                "insertion past the end",
                Diff(seq: seq, changes: ["todo": .init(inserted: [.init(index: 4, card: SnapshotFixture.card("x"))])])
            ),
            ("removed column not empty", Diff(seq: seq, removedColumns: [.init(index: 0, id: "todo")])),
            ("column index out of range", Diff(seq: seq, movedColumns: [.init(id: "todo", fromIndex: 0, toIndex: 3)])),
            ("updated card missing", Diff(seq: seq, updated: [SnapshotFixture.card("zz")])),
            ("updated column missing", Diff(seq: seq, updatedColumns: [Column(id: "zz", name: "Z")])),
        ]
        for (reason, diff) in misfits {
            #expect(snapshot.applying(diff) == nil, "\(reason)")
        }
        // The same kinds of changes, fitting, apply.
        #expect(snapshot.applying(Diff(seq: seq, movedColumns: [.init(id: "todo", fromIndex: 0, toIndex: 2)])) != nil)
        #expect(snapshot.applying(Diff(seq: seq, changes: ["todo": .init(deleted: [.init(index: 2, id: "c")])])) != nil)
    }

    @Test func applyingInsertsInAscendingNewIndexOrder() {
        let x = SnapshotFixture.card("x")
        let y = SnapshotFixture.card("y")
        let snapshot = SnapshotFixture(todo: ["a", "b"]).snapshot
        // Listed out of order on purpose: applying sorts them, x lands at 0 and y at 3 of the new column.
        let diff = Diff(
            seq: 7, changes: ["todo": .init(inserted: [.init(index: 3, card: y), .init(index: 0, card: x)])])
        let result = snapshot.applying(diff)
        #expect(result.map { SnapshotFixture.ids($0, "todo") } == ["x", "a", "b", "y"])
        #expect(result?.seq == 7)
    }
}
