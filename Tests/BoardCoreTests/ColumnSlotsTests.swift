import Foundation
import PropertyBased
import Testing

@testable import BoardCore

/// The per-column placement index (`Board.slots`): kept current by the reducer, dropped by any change of `cards`
/// from outside it, and invisible in equality, hashing, encoding and the board hash.
@Suite struct ColumnSlotsTests {
    /// Applies the templates' ops in place (the board actor's path); after each one the index, when kept, is what
    /// a rebuild from the cards gives, and placement answers as on the same board without an index.
    static func check(_ templates: [OpTemplate], on start: Board) -> (kept: Int, applied: Int) {
        var board = start
        var kept = 0
        var applied = 0
        for template in templates {
            guard let op = template.op else { continue }
            let context = ctx(template.actor, on: board)
            var unindexed = board
            unindexed.slots = nil
            let withIndex = board.apply(op, context: context)
            let without = unindexed.apply(op, context: context)
            #expect(board == unindexed, "\(template)")
            switch (withIndex, without) {
            case (.success(let a), .success(let b)): #expect(a.activity == b.activity && a.inverse == b.inverse, "\(template)")
            case (.failure(let a), .failure(let b)): #expect(a == b, "\(template)")
            default: Issue.record("one applied, one refused: \(template)")
            }
            if case .success = withIndex { applied += 1 }
            if let slots = board.slots {
                kept += 1
                #expect(slots == ColumnSlots(board.cardTable), "index out of date after \(template)")
            }
        }
        return (kept, applied)
    }

    @Test func randomOpSequencesKeepTheIndexCurrent() async {
        await propertyCheck(count: 200, input: OpTemplate.sequence) { templates in
            _ = Self.check(templates, on: Fixtures.board)
        }
    }

    @Test func theReducerKeepsTheIndexAcrossEveryKindOfOp() {
        var templates: [OpTemplate] = []
        for round in 0..<40 {
            for kind in 0..<OpTemplate.kindCount {
                templates.append(OpTemplate(kind: kind, a: round * 7 + kind, b: round * 13 + kind * 3, c: round * 29 + kind, who: 0))
            }
        }
        let run = Self.check(templates, on: Fixtures.board)
        #expect(run.applied > 150)
        // Only re-keys (rare) drop the index; every other op keeps it.
        #expect(run.kept > templates.count * 9 / 10, "the index was dropped \(templates.count - run.kept) times")
    }

    @Test func aMoveAndAnAddKeepTheIndexWithoutRebuildingIt() {
        var board = Fixtures.board
        #expect(board.slots == nil)
        let move = Op.moveCard(card: "c1", column: "doing", placement: .bottom)
        _ = board.apply(move, context: ctx("alice", on: board))
        #expect(board.slots != nil, "the first placement builds the index")
        #expect(board.slots == ColumnSlots(board.cardTable))
        let add = Op.addCard(AddCard(card: "n9", column: "doing", placement: Placement(before: "c1"), title: "New"))
        _ = board.apply(add, context: ctx("alice", on: board))
        #expect(board.slots == ColumnSlots(board.cardTable))
        _ = board.apply(.archiveCard(card: "n9"), context: ctx("alice", on: board))
        _ = board.apply(.purgeCard(card: "c1"), context: ctx("alice", on: board))
        #expect(board.slots == ColumnSlots(board.cardTable))
    }

    @Test func changingCardsFromOutsideTheReducerDropsTheIndex() {
        var board = Fixtures.board
        _ = board.apply(.moveCard(card: "c1", column: "doing", placement: .bottom), context: ctx("alice", on: board))
        #expect(board.slots != nil)
        board.cards["c1"]!.rank = Rank("1")!
        #expect(board.slots == nil)
        _ = board.apply(.moveCard(card: "c2", column: "doing", placement: .top), context: ctx("alice", on: board))
        #expect(board.slots == ColumnSlots(board.cardTable))
    }

    @Test func theIndexIsInvisibleInEqualityHashingEncodingAndTheBoardHash() throws {
        var indexed = Fixtures.board
        indexed.reserveCards(indexed.cards.count)
        let plain = Fixtures.board
        #expect(indexed.slots != nil && plain.slots == nil)
        #expect(indexed == plain)
        #expect(indexed.hashValue == plain.hashValue)
        #expect(indexed.contentHash == plain.contentHash)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(try encoder.encode(indexed) == encoder.encode(plain))
        // A value: moving a card in a copy leaves the original and its index alone.
        var copy = indexed
        _ = copy.apply(.moveCard(card: "c1", column: "done", placement: .top), context: ctx("alice", on: copy))
        #expect(indexed == plain)
        #expect(indexed.slots == ColumnSlots(indexed.cardTable))
        #expect(copy.slots == ColumnSlots(copy.cardTable))
    }
}
