import BoardClientCore
import BoardCore
import Testing

@testable import BoardWeb

/// The web session's diff, computed from the cards a change names: applied the way the page applies it
/// (docs/web.md), it must turn what the page showed into exactly the new board, for random sequences of adds, moves
/// (within and across columns), edits, archives and restores.
@Suite struct LiveDiffTests {
    /// What the page does with a diff: removals by descending old index, then insertions by ascending new index,
    /// column by column; updated cards stay where they are.
    static func apply(_ diff: SnapshotDiff, to shown: LiveSession.Shown) -> [ColumnID: [CardID]] {
        var cards = shown.cards
        for column in shown.columns.map(\.id) {
            var ids = cards[column] ?? []
            let removals = ((diff.changes[column]?.deleted.map(\.index) ?? [])
                + diff.moves.filter { $0.fromColumn == column }.map(\.fromIndex)).sorted(by: >)
            for index in removals { ids.remove(at: index) }
            cards[column] = ids
        }
        for column in shown.columns.map(\.id) {
            var ids = cards[column] ?? []
            let insertions = ((diff.changes[column]?.inserted.map { ($0.index, $0.card.id) } ?? [])
                + diff.moves.filter { $0.toColumn == column }.map { ($0.toIndex, $0.card.id) }).sorted { $0.0 < $1.0 }
            for (index, id) in insertions { ids.insert(id, at: index) }
            cards[column] = ids
        }
        return cards
    }

    @Test(arguments: [1, 2, 3, 4, 5])
    func aDiffFromTheChangedCardsRebuildsTheBoard(seed: UInt64) throws {
        var random = SplitRandom(seed: seed)
        var board = Board(id: "main", name: "Main", owner: "alice")
        let columns: [ColumnID] = board.columns.map(\.id)
        var next = 0
        var checked = 0
        for step in 0..<300 {
            let context = ApplyContext(actor: "alice", role: .owner, now: Timestamp(milliseconds: Int64(step)), seq: board.seq + 1)
            let live = board.cards.values.filter { !$0.archived }.map(\.id).sorted()
            let archived = board.cards.values.filter(\.archived).map(\.id).sorted()
            let op: Op
            switch random.next(below: 10) {
            case 0, 1, 2:
                next += 1
                let placement: Placement = live.isEmpty || random.next(below: 2) == 0
                    ? .bottom : Placement(after: live[random.next(below: live.count)])
                op = .addCard(AddCard(card: CardID("c\(next)"), column: columns[random.next(below: columns.count)], placement: placement, title: "card \(next)"))
            case 3, 4, 5, 6:
                guard !live.isEmpty else { continue }
                let card = live[random.next(below: live.count)]
                let target = columns[random.next(below: columns.count)]
                let others = board.cardIDs(in: target).filter { $0 != card }
                let placement: Placement = others.isEmpty ? .bottom
                    : random.next(below: 2) == 0 ? Placement(before: others[random.next(below: others.count)])
                    : Placement(after: others[random.next(below: others.count)])
                op = .moveCard(card: card, column: target, placement: placement)
            case 7:
                guard !live.isEmpty else { continue }
                op = .editCard(EditCard(card: live[random.next(below: live.count)], title: "edited \(step)"))
            case 8:
                guard !live.isEmpty else { continue }
                op = .archiveCard(card: live[random.next(below: live.count)])
            default:
                guard !archived.isEmpty else { continue }
                op = .restoreCard(card: archived[random.next(below: archived.count)])
            }
            let shown = LiveSession.Shown(board)
            let changes = BoardChanges.of(op, on: board)
            guard case .success = board.apply(op, context: context) else { continue }
            board.seq += 1
            let result = try #require(LiveSession.diff(from: shown, to: board, changes: changes), "step \(step): \(op)")
            #expect(Self.apply(result.diff, to: shown) == LiveSession.Shown(board).cards, "step \(step): \(op)")
            #expect(result.shown.cards == LiveSession.Shown(board).cards)
            checked += 1
        }
        #expect(checked > 200)
    }

    @Test func aChangeOfTheColumnsSendsTheWholeBoard() throws {
        var board = Board(id: "main", name: "Main", owner: "alice")
        let shown = LiveSession.Shown(board)
        let op = Op.renameColumn(column: board.columns[0].id, name: "Backlog")
        let changes = BoardChanges.of(op, on: board)
        _ = board.apply(op, context: ApplyContext(actor: "alice", role: .owner, now: Timestamp(milliseconds: 1), seq: 1))
        #expect(LiveSession.diff(from: shown, to: board, changes: changes) == nil)
        #expect(LiveSession.diff(from: shown, to: board, changes: .everything) == nil)
    }

    @Test func cardIDsAreTheOrderOfTheCards() {
        var board = Board(id: "main", name: "Main", owner: "alice")
        for n in 0..<30 {
            _ = board.apply(
                .addCard(AddCard(card: CardID("c\(n)"), column: "todo", placement: n % 3 == 0 ? .top : .bottom, title: "t")),
                context: ApplyContext(actor: "alice", role: .owner, now: Timestamp(milliseconds: 1), seq: UInt64(n + 1)))
        }
        #expect(board.cardIDs(in: "todo") == board.cards(in: "todo").map(\.id))
        #expect(board.cardIDs(in: "todo").count == 30)
    }
}

/// A small deterministic generator (SplitMix64).
struct SplitRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next(below bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}
