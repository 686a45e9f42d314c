import PropertyBased
import Testing

@testable import BoardCore

/// The ranks random cards take (so some cards share a rank and some change it).
private let ranks = Rank.evenlySpaced(count: 8)

/// Builds a snapshot from picks: columns as (id 0...4, variant), cards as (id, column slot, variant).
///
/// Repeated column ids are dropped; repeated card ids too unless `repeatCards`. A card goes to the column at its
/// slot (modulo the column count) and is dropped when there is no column.
private func makeSnapshot(
    seq: UInt64, columns columnPicks: [(Int, Int)], cards cardPicks: [(Int, Int, Int)], repeatCards: Bool = false
) -> BoardSnapshot {
    var columnIDs: Set<Int> = []
    var columns: [ColumnSnapshot] = []
    for (id, variant) in columnPicks where columnIDs.insert(id).inserted {
        let column = Column(
            id: ColumnID("c\(id)"), name: variant == 1 ? "Renamed" : "C\(id)",
            wip: variant == 2 ? WIPLimit(limit: 2, hard: false) : nil)
        columns.append(ColumnSnapshot(column: column, cards: []))
    }
    guard !columns.isEmpty else { return BoardSnapshot(seq: seq, columns: []) }
    var cardIDs: Set<Int> = []
    for (id, slot, variant) in cardPicks where repeatCards || cardIDs.insert(id).inserted {
        let column = slot % columns.count
        var card = SnapshotFixture.card(
            "k\(id)", column: columns[column].column.id, rank: ranks[(id + variant) % ranks.count],
            title: "t\(variant % 3)")
        card.closed = variant >= 3
        columns[column].cards.append(card)
    }
    return BoardSnapshot(seq: seq, columns: columns)
}

/// Random snapshots with unique column and card ids.
private let snapshots = zip(
    Gen.uint64(in: 0...3),
    zip(Gen.int(in: 0...4), Gen.int(in: 0...2)).array(of: 0...5),
    zip(Gen.int(in: 0...24), Gen.int(in: 0...5), Gen.int(in: 0...5)).array(of: 0...30)
).map { input in makeSnapshot(seq: input.0, columns: input.1, cards: input.2) }

/// Random snapshots whose card ids may repeat.
private let snapshotsWithRepeats = zip(
    zip(Gen.int(in: 0...3), Gen.int(in: 0...2)).array(of: 0...4),
    zip(Gen.int(in: 0...6), Gen.int(in: 0...5), Gen.int(in: 0...5)).array(of: 0...15)
).map { input in makeSnapshot(seq: 1, columns: input.0, cards: input.1, repeatCards: true) }

/// One edit of a snapshot: a kind and three numbers that pick what it touches.
private typealias Edit = (kind: Int, a: Int, b: Int, c: Int)

/// Random lists of edits.
private let edits = zip(Gen.int(in: 0...8), Gen.int(in: 0...99), Gen.int(in: 0...99), Gen.int(in: 0...99))
    .array(of: 0...6)

/// The (column, index) of every card, column by column.
private func places(_ snapshot: BoardSnapshot) -> [(column: Int, index: Int)] {
    snapshot.columns.enumerated().flatMap { column, snapshot in snapshot.cards.indices.map { (column, $0) } }
}

/// Moves the card at flat position `pick` to `index` (clamped) of column `to`, as a board move would.
private func moving(_ snapshot: BoardSnapshot, card pick: Int, to column: Int, at index: Int) -> BoardSnapshot {
    var result = snapshot
    let all = places(snapshot)
    guard !all.isEmpty else { return result }
    let from = all[pick % all.count]
    var card = result.columns[from.column].cards.remove(at: from.index)
    let target = column % result.columns.count
    card.column = result.columns[target].column.id
    result.columns[target].cards.insert(card, at: index % (result.columns[target].cards.count + 1))
    return result
}

/// Applies one edit: move, delete, add, edit or re-rank a card, or move, remove, add or rename a column.
private func applyEdit(_ edit: Edit, to snapshot: BoardSnapshot) -> BoardSnapshot {
    var s = snapshot
    let all = places(s)
    let card = all.isEmpty ? nil : all[edit.a % all.count]
    switch edit.kind {
    case 0:
        guard !s.columns.isEmpty else { return s }
        s = moving(s, card: edit.a, to: edit.b, at: edit.c)
    case 1:
        guard let card else { return s }
        s.columns[card.column].cards.remove(at: card.index)
    case 2:
        guard !s.columns.isEmpty,
            !all.contains(where: { s.columns[$0.column].cards[$0.index].id.rawValue == "n\(edit.a)" })
        else { return s }
        let column = edit.b % s.columns.count
        let new = SnapshotFixture.card("n\(edit.a)", column: s.columns[column].column.id, rank: ranks[edit.c % 8])
        s.columns[column].cards.insert(new, at: edit.c % (s.columns[column].cards.count + 1))
    case 3:
        guard let card else { return s }
        s.columns[card.column].cards[card.index].title = "e\(edit.b)"
    case 4:
        guard let card else { return s }
        s.columns[card.column].cards[card.index].rank = ranks[edit.b % 8]
    case 5:
        guard !s.columns.isEmpty else { return s }
        let column = s.columns.remove(at: edit.a % s.columns.count)
        s.columns.insert(column, at: edit.b % (s.columns.count + 1))
    case 6:
        guard !s.columns.isEmpty else { return s }
        s.columns.remove(at: edit.a % s.columns.count)
    case 7:
        let id = ColumnID("x\(edit.a)")
        guard s.column(id) == nil else { return s }
        s.columns.insert(
            ColumnSnapshot(column: Column(id: id, name: "X"), cards: []), at: edit.b % (s.columns.count + 1))
    default:
        guard !s.columns.isEmpty else { return s }
        s.columns[edit.a % s.columns.count].column.name = "N\(edit.b)"
    }
    return s
}

/// The ids of all cards of a snapshot.
private func cardIDs(_ snapshot: BoardSnapshot) -> Set<CardID> {
    Set(snapshot.columns.flatMap { $0.cards.map(\.id) })
}

@Suite struct SnapshotDiffPropertyTests {
    @Test func applyingTheDiffOfTwoRandomSnapshotsGivesTheNewOne() async {
        await propertyCheck(count: 300, input: zip(snapshots, snapshots)) { old, new in
            let diff = SnapshotDiff(from: old, to: new)
            #expect(old.applying(diff) == new)
            // Only cards missing from one side are deletions or insertions; the rest are moves or stay.
            let deleted = diff.changes.values.reduce(0) { $0 + $1.deleted.count }
            let inserted = diff.changes.values.reduce(0) { $0 + $1.inserted.count }
            #expect(deleted == cardIDs(old).subtracting(cardIDs(new)).count)
            #expect(inserted == cardIDs(new).subtracting(cardIDs(old)).count)
        }
    }

    @Test func applyingTheDiffOfAnEditedSnapshotGivesTheEditedOne() async {
        await propertyCheck(count: 300, input: zip(snapshots, edits)) { old, edits in
            let new = edits.reduce(old) { applyEdit($1, to: $0) }
            #expect(old.applying(SnapshotDiff(from: old, to: new)) == new)
            #expect(new.applying(SnapshotDiff(from: new, to: old)) == old)
        }
    }

    @Test func theDiffOfASnapshotToItselfIsEmpty() async {
        await propertyCheck(count: 300, input: snapshots) { snapshot in
            let diff = SnapshotDiff(from: snapshot, to: snapshot)
            #expect(diff.isEmpty)
            #expect(diff == SnapshotDiff(seq: snapshot.seq))
            #expect(snapshot.applying(diff) == snapshot)
        }
    }

    @Test func movingOneCardIsOneMove() async {
        let input = zip(snapshots, Gen.int(in: 0...99), Gen.int(in: 0...99), Gen.int(in: 0...99))
        await propertyCheck(count: 300, input: input) { old, card, column, index in
            guard !old.columns.isEmpty else { return }
            let new = moving(old, card: card, to: column, at: index)
            let diff = SnapshotDiff(from: old, to: new)
            #expect(diff.moves.count == (new == old ? 0 : 1))
            #expect(diff.cardChangeCount == diff.moves.count)
            #expect(old.applying(diff) == new)
        }
    }

    @Test func repeatedCardIdsStillApplyExactly() async {
        await propertyCheck(count: 300, input: zip(snapshotsWithRepeats, snapshotsWithRepeats)) { old, new in
            #expect(old.applying(SnapshotDiff(from: old, to: new)) == new)
        }
    }
}
