import Foundation
import Testing

@testable import BoardCore

/// Dependencies: `card.block`, `card.unblock`, `column.in_progress`, and a blocked card kept out of an in-progress
/// column unless an editor forces it with a reason.
@Suite struct DependencyTests {
    /// The fixture with #2 "Design settings" (todo) blocked by #1 "Fix login" (todo, open).
    static var blocked: Board {
        var board = Fixtures.board
        mustApply(.blockCard(card: "c2", by: "c1"), to: &board)
        return board
    }

    @Test func blockRecordsTheBlockerAndItsInverseUnblocks() throws {
        let change = try accepted(.blockCard(card: "c2", by: "c1"), on: Fixtures.board, as: "bob")
        #expect(change.board.cards["c2"]?.blockedBy == ["c1"])
        #expect(change.activity.kind == "card.block")
        #expect(change.activity.changes["blocked_by"] == fc(.null, .array([.string("c1")])))
        #expect(change.inverse == .unblockCard(card: "c2", by: "c1"))
        #expect(change.board.blockers(of: change.board.cards["c2"]!).map(\.id) == ["c1"])
        #expect(change.board.blocked(by: "c1").map(\.id) == ["c2"])
    }

    @Test func blockingTwiceIsANoopAndUnblockingRemoves() throws {
        expectNoop(.blockCard(card: "c2", by: "c1"), on: Self.blocked)
        let change = try accepted(.unblockCard(card: "c2", by: "c1"), on: Self.blocked)
        #expect(change.board.cards["c2"]?.blockedBy == [])
        #expect(change.activity.changes["blocked_by"] == fc(.array([.string("c1")]), .null))
        #expect(change.inverse == .blockCard(card: "c2", by: "c1"))
        expectNoop(.unblockCard(card: "c2", by: "c3"), on: Self.blocked)
    }

    @Test func cyclesAreRefusedWithTheChain() throws {
        var board = Self.blocked
        mustApply(.blockCard(card: "c1", by: "c3"), to: &board)
        // c2 waits for c1, which waits for c3: c3 waiting for c2 would close the loop.
        let refusal = try #require(rejection(of: .blockCard(card: "c3", by: "c2"), on: board))
        #expect(refusal.code == .cycle)
        #expect(refusal.message.contains("#2 → #1 → #3"), "\(refusal.message)")
        #expect(rejectionCode(of: .blockCard(card: "c2", by: "c2"), on: board) == .cycle)
    }

    @Test func blockNeedsBothCards() {
        #expect(rejectionCode(of: .blockCard(card: "c2", by: "nope"), on: Fixtures.board) == .notFound)
        #expect(rejectionCode(of: .blockCard(card: "nope", by: "c1"), on: Fixtures.board) == .notFound)
        #expect(rejectionCode(of: .blockCard(card: "c2", by: "c1"), on: Fixtures.board, as: "vera") == .forbidden)
    }

    @Test func aBlockedCardCannotEnterDoingAndTheRefusalNamesTheBlockers() throws {
        let refusal = try #require(rejection(of: .moveCard(card: "c2", column: "doing", placement: .bottom), on: Self.blocked, as: "bob"))
        #expect(refusal.code == .blocked)
        #expect(refusal.message.contains("#1 Fix login"), "\(refusal.message)")
        #expect(refusal.current == .array([.string("c1")]))
        #expect(refusal.message.hasSuffix("finish those first, or move it with a reason"), "\(refusal.message)")
        // A bot is not offered the forced move it would be refused.
        let bots = try #require(rejection(of: .moveCard(card: "c2", column: "doing", placement: .bottom), on: Self.blocked, as: "ci"))
        #expect(bots.message.hasSuffix("finish those first (an owner or editor may move it anyway, with a reason)"), "\(bots.message)")
    }

    @Test func otherColumnsAndReordersAreNotInProgress() throws {
        // Into DONE (not in progress) is fine, and so is moving within TODO.
        _ = try accepted(.moveCard(card: "c2", column: "done", placement: .bottom), on: Self.blocked, as: "bob")
        _ = try accepted(.moveCard(card: "c2", column: "todo", placement: .top), on: Self.blocked, as: "bob")
    }

    @Test func anEditorMayForceItWithAReasonThatTheActivityKeeps() throws {
        let change = try accepted(
            .moveCard(card: "c2", column: "doing", placement: .bottom, force: "design can start on a mock"), on: Self.blocked,
            as: "bob")
        #expect(change.board.cards["c2"]?.column == "doing")
        #expect(change.activity.text == "design can start on a mock")
        #expect(change.inverse == .moveCard(card: "c2", column: "todo", placement: Placement(rank: Rank("V")!)))
        // A bot may not, and a reason must say something.
        #expect(
            rejectionCode(of: .moveCard(card: "c2", column: "doing", placement: .bottom, force: "because"), on: Self.blocked, as: "ci")
                == .forbidden)
        #expect(
            rejectionCode(of: .moveCard(card: "c2", column: "doing", placement: .bottom, force: "  "), on: Self.blocked, as: "bob")
                == .invalid)
    }

    @Test func aForcedMoveNamesTheBlockersItWentPast() throws {
        var board = Self.blocked
        let change = try #require(
            mustApply(.moveCard(card: "c2", column: "doing", placement: .bottom, force: "mock first"), to: &board, as: "bob"))
        #expect(change.activity.names?.cards == ["c1": "#1 Fix login"])
    }

    @Test func aBlockerThatIsDoneClosedOrArchivedNoLongerBlocks() throws {
        for op: Op in [.moveCard(card: "c1", column: "done", placement: .bottom), .closeCard(card: "c1"), .archiveCard(card: "c1")] {
            var board = Self.blocked
            mustApply(op, to: &board)
            #expect(!board.isBlocked(board.cards["c2"]!), "after \(op.kind)")
            _ = try accepted(.moveCard(card: "c2", column: "doing", placement: .bottom), on: board, as: "bob")
        }
        var purged = Self.blocked
        mustApply(.purgeCard(card: "c1"), to: &purged)
        #expect(!purged.isBlocked(purged.cards["c2"]!))
    }

    @Test func columnsCanBeMarkedInProgressAndTheDefaultLeavesNoTrace() throws {
        var board = Self.blocked
        _ = try accepted(.moveCard(card: "c2", column: "done", placement: .bottom), on: board, as: "bob")
        let marked = try #require(mustApply(.setInProgress(column: "done", on: true), to: &board))
        #expect(marked.activity.changes["in_progress"] == fc(.null, .bool(true)))
        #expect(rejectionCode(of: .moveCard(card: "c2", column: "done", placement: .bottom), on: board, as: "bob") == .blocked)
        let unmarked = try #require(mustApply(.setInProgress(column: "doing", on: false), to: &board))
        #expect(unmarked.inverse == .setInProgress(column: "doing", on: true))
        _ = try accepted(.moveCard(card: "c2", column: "doing", placement: .bottom), on: board, as: "bob")
        mustApply(.setInProgress(column: "doing", on: true), to: &board)
        #expect(board.column("doing")?.inProgress == nil, "back to the default is stored as the default")
        #expect(rejectionCode(of: .setInProgress(column: "doing", on: false), on: board, as: "ci") == .forbidden)
    }

    @Test func theHashCoversDependenciesOnlyWhenThereAreSome() throws {
        let plain = Fixtures.board
        #expect(!plain.canonicalText().contains("blocked_by"))
        #expect(!plain.canonicalText().contains("in_progress"))
        let blocked = Self.blocked
        #expect(blocked.canonicalText().contains(#""ref":null,"blocked_by":["c1"],"created_by":"bob""#))
        #expect(blocked.protocolHash != plain.protocolHash)
        var marked = plain
        mustApply(.setInProgress(column: "done", on: true), to: &marked)
        #expect(marked.canonicalText().contains(#""id":"done","name":"DONE","wip":null,"in_progress":true}"#))
    }

    @Test func cardsDecodeWithoutBlockedByAndEncodeItOnlyWhenSet() throws {
        let card = Fixtures.board.cards["c1"]!
        let plain = try JSONEncoder().encode(card)
        #expect(!String(decoding: plain, as: UTF8.self).contains("blocked_by"))
        #expect(try JSONDecoder().decode(Card.self, from: plain) == card)
        var blocked = card
        blocked.blockedBy = ["c2", "c3"]
        let text = try JSONEncoder().encode(blocked)
        #expect(String(decoding: text, as: UTF8.self).contains(#""blocked_by":["c2","c3"]"#))
        #expect(try JSONDecoder().decode(Card.self, from: text) == blocked)
    }

    @Test func queriesFindBlockedCardsAndBlockers() throws {
        let board = Self.blocked
        let context = QueryContext(today: Day(year: 2026, month: 1, day: 1)!, me: "alice")
        #expect(try Query.parse("is:blocked").filter(board, context: context).map(\.id) == ["c2"])
        #expect(try Query.parse("blocks:#2").filter(board, context: context).map(\.id) == ["c1"])
        #expect(try Query.parse("blocks:c2").filter(board, context: context).map(\.id) == ["c1"])
        #expect(try Query.parse("-is:blocked is:open").filter(board, context: context).map(\.id).contains("c2") == false)
        #expect(try Query.parse("is:blocked").description == "is:blocked")
        #expect(try Query.parse("blocks:#2").description == "blocks:\"#2\"")
    }
}

/// Recurring cards: the rule, the next due day, and the ops that add the next occurrence exactly once.
@Suite struct RecurrenceTests {
    static let monday = Day(year: 2026, month: 3, day: 2)!

    @Test func nextDueDays() {
        let friday = Self.monday.adding(days: 4)
        #expect(Self.monday.weekday == 1 && friday.weekday == 5)
        #expect(Recurrence(every: .day).next(due: Self.monday, done: Self.monday) == Self.monday.adding(days: 1))
        #expect(Recurrence(every: .weekday).next(due: friday, done: friday) == friday.adding(days: 3))
        #expect(Recurrence(every: .week, days: ["mon", "thu"]).next(due: Self.monday, done: Self.monday) == Self.monday.adding(days: 3))
        // Done late: the next day of the schedule after the day it was done.
        #expect(Recurrence(every: .week, days: ["mon"]).next(due: Self.monday, done: Self.monday.adding(days: 9)) == Self.monday.adding(days: 14))
        #expect(Recurrence(every: .month, day: 31).next(due: Day(year: 2026, month: 1, day: 31)!, done: Self.monday)
            == Day(year: 2026, month: 3, day: 31)!)
        #expect(Recurrence(every: .month, day: 31).next(due: Day(year: 2026, month: 1, day: 31)!, done: Day(year: 2026, month: 2, day: 1)!)
            == Day(year: 2026, month: 2, day: 28)!)
        #expect(Recurrence(afterDoneDays: 3).next(due: nil, done: Self.monday) == Self.monday.adding(days: 3))
    }

    @Test func badRulesAreInvalid() {
        for rule in [Recurrence(), Recurrence(every: .week), Recurrence(every: .week, days: ["funday"]), Recurrence(every: .month),
                     Recurrence(every: .day, afterDoneDays: 2), Recurrence(afterDoneDays: 0)] {
            #expect(rejectionCode(of: .setRecurrence(card: "c1", recurrence: rule), on: Fixtures.board) == .invalid, "\(rule)")
        }
    }

    @Test func closingARecurringCardGivesItsNextOccurrenceOnce() throws {
        var board = Fixtures.board
        mustApply(.editCard(EditCard(card: "c3", due: .set(Self.monday))), to: &board)
        mustApply(.setRecurrence(card: "c3", recurrence: Recurrence(every: .week, days: ["thu"])), to: &board)
        let closed = try #require(mustApply(.closeCard(card: "c3"), to: &board, as: "bob"))
        let ops = RecurrenceRules.nextOccurrence(after: closed.activity, board: board, today: Self.monday)
        guard case .addCard(let add)? = ops.first else { Issue.record("no card.add: \(ops)"); return }
        #expect(add.title == "Write docs" && add.due == Self.monday.adding(days: 3) && add.column == "todo")
        #expect(add.ref == "recur:\(RecurrenceRules.digest("c3", 12)):2026-03-05")
        #expect(ops.count == 4, "add, recur, and the two checklist items: \(ops)")
        #expect(ops.contains(.addChecklistItem(card: add.card, item: "i2", text: "Review", done: false, index: nil)))
        for op in ops { mustApply(op, to: &board, as: "alice") }
        let next = try #require(board.cards[add.card])
        #expect(next.recur == Recurrence(every: .week, days: ["thu"]) && next.checklist.allSatisfy { !$0.done })
        // Derived again: the same id and ref, refused as a duplicate: nothing is added twice.
        let again = RecurrenceRules.nextOccurrence(after: closed.activity, board: board, today: Self.monday)
        #expect(again.first == ops.first)
        #expect(rejectionCode(of: again[0], on: board) == .duplicateRef || rejectionCode(of: again[0], on: board) == .duplicateID)
        // The occurrence's own occurrence stays in the same series.
        let nextClosed = try #require(mustApply(.closeCard(card: add.card), to: &board))
        guard case .addCard(let third)? = RecurrenceRules.nextOccurrence(after: nextClosed.activity, board: board, today: Self.monday).first
        else { Issue.record("no third occurrence"); return }
        #expect(third.ref == "recur:\(RecurrenceRules.digest("c3", 12)):2026-03-12")
    }

    @Test func archivingOrReopeningDoesNotRecur() throws {
        var board = Fixtures.board
        mustApply(.setRecurrence(card: "c1", recurrence: Recurrence(every: .day)), to: &board)
        let archived = try #require(mustApply(.archiveCard(card: "c1"), to: &board))
        #expect(RecurrenceRules.nextOccurrence(after: archived.activity, board: board, today: Self.monday).isEmpty)
    }
}
