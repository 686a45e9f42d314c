import BoardCore
import Testing

@testable import CorkApp

/// Op building from command arguments.
@Suite struct CardOpsTests {
    let board = TestBoard.standard().board

    /// A due date may be counted from today: 2026-03-10 is a Tuesday.
    @Test(arguments: [
        ("2026-04-01", "2026-04-01"), ("today", "2026-03-10"), ("Tomorrow", "2026-03-11"), ("+3", "2026-03-13"),
        ("+3d", "2026-03-13"), ("+2w", "2026-03-24"), ("+0", "2026-03-10"), ("fri", "2026-03-13"),
        ("Friday", "2026-03-13"), ("tue", "2026-03-17"), ("mon", "2026-03-16"), ("sun", "2026-03-15"),
    ])
    func dueDatesAreAbsoluteOrCountedFromToday(_ typed: String, _ day: String) throws {
        let today = try #require(Day(year: 2026, month: 3, day: 10))
        #expect(try CardOps.day(typed, today: today).description == day)
    }

    @Test(arguments: ["someday", "+", "+x", "+3m", "fr", "-1", "2026-02-30", "+99999"])
    func aDueDateThatIsNoneOfThoseIsAUsageError(_ typed: String) throws {
        let today = try #require(Day(year: 2026, month: 3, day: 10))
        #expect(throws: CorkFailure.self) { try CardOps.day(typed, today: today) }
    }

    @Test func addCreatesMissingLabelsFirstAndResolvesNames() throws {
        var request = CardOps.AddRequest(title: "Ship it")
        request.column = "doing"
        request.labels = ["BUG", "perf", "Perf", "good first issue"]
        request.due = "2026-03-01"
        request.assignees = ["@bob", "Bob B."]
        request.description = "now"
        request.ref = "ci:1"
        let ops = try CardOps.add(request, on: board, cardID: "cnew")
        #expect(ops.count == 3)
        #expect(ops[0] == .createLabel(label: "perf", name: "perf", color: LabelPalette.color(forName: "perf")))
        #expect(ops[1] == .createLabel(label: "good-first-issue", name: "good first issue", color: HexColor("#7057ff")!))
        var expected = AddCard(card: "cnew", column: "doing", title: "Ship it", description: "now")
        expected.due = Day("2026-03-01")
        expected.labels = ["bug", "perf", "good-first-issue"]
        expected.assignees = ["bob"]
        expected.ref = "ci:1"
        #expect(ops[2] == .addCard(expected))

        // Applied in order, the ops are accepted by the reducer.
        var t = TestBoard(board)
        for op in ops { t.apply(op) }
        #expect(t.board.cards["cnew"]?.labels.count == 3)
    }

    @Test func addRefusesWhatNamesNothing() {
        var request = CardOps.AddRequest(title: "x")
        request.column = "review"
        #expect(throws: CorkFailure.self) { try CardOps.add(request, on: board, cardID: "c9") }
        do {
            _ = try CardOps.add(request, on: board, cardID: "c9")
        } catch {
            #expect(error.exitCode == .notFound && error.message.contains("columns are TODO, DOING, DONE"))
        }
        request.column = nil
        request.assignees = ["dave"]
        #expect(throws: CorkFailure.self) { try CardOps.add(request, on: board, cardID: "c9") }
        request.assignees = []
        request.due = "1 March"
        #expect(throws: CorkFailure.usage("\"1 March\" is not a date; write YYYY-MM-DD, today, tomorrow, +3 (days), +2w (weeks) or a weekday (fri)")) {
            try CardOps.add(request, on: board, cardID: "c9")
        }
        // Refused as the server refuses an invalid field (exit 3), not as a usage error.
        let empty = #expect(throws: CorkFailure.self) { try CardOps.add(CardOps.AddRequest(title: "  "), on: board, cardID: "c9") }
        #expect(empty?.exitCode == .rejected && empty?.message == "invalid: title must not be empty", "\(String(describing: empty))")
    }

    @Test func movePlacementsAreExclusive() throws {
        #expect(try CardOps.placement(after: nil, before: nil, top: false, bottom: false, on: board) == .bottom)
        #expect(try CardOps.placement(after: nil, before: nil, top: true, bottom: false, on: board) == .top)
        #expect(try CardOps.placement(after: "#2", before: nil, top: false, bottom: false, on: board) == Placement(after: "c2"))
        #expect(try CardOps.placement(after: nil, before: "ref:GH-12", top: false, bottom: false, on: board) == Placement(before: "c3"))
        #expect(throws: CorkFailure.self) {
            try CardOps.placement(after: "#1", before: nil, top: true, bottom: false, on: board)
        }
        let op = try CardOps.move("1", to: "Done", placement: { _ throws(CorkFailure) in .top }, on: board)
        #expect(op == .moveCard(card: "c1", column: "done", placement: .top))
        #expect(throws: CorkFailure.self) {
            try CardOps.move("#99", to: "done", placement: { _ throws(CorkFailure) in .bottom }, on: board)
        }
    }

    @Test func editNeedsOneFieldAndNotBothDueFlags() throws {
        let card = board.cards["c1"]!
        #expect(
            try CardOps.edit(card, title: "New", description: nil, due: "2026-05-01", clearDue: false)
                == .editCard(EditCard(card: "c1", title: "New", due: .set(Day("2026-05-01")!))))
        #expect(try CardOps.edit(card, title: nil, description: nil, due: nil, clearDue: true) == .editCard(EditCard(card: "c1", due: .clear)))
        #expect(throws: CorkFailure.self) { try CardOps.edit(card, title: nil, description: nil, due: nil, clearDue: false) }
        #expect(throws: CorkFailure.self) { try CardOps.edit(card, title: nil, description: nil, due: "2026-05-01", clearDue: true) }
    }

    @Test func labelEditsParsePlusMinusAndBare() throws {
        let edit = try LabelEdit(arguments: ["+docs", "-bug", "perf"])
        #expect(edit.add == ["docs", "perf"] && edit.remove == ["bug"])
        let ops = try edit.ops(for: board.cards["c1"]!, on: board)
        #expect(ops == [
            .createLabel(label: "perf", name: "perf", color: LabelPalette.color(forName: "perf")),
            .addLabel(card: "c1", label: "docs"), .addLabel(card: "c1", label: "perf"),
            .removeLabel(card: "c1", label: "bug"),
        ])
        #expect(throws: CorkFailure.self) { try LabelEdit(arguments: []) }
        #expect(throws: CorkFailure.self) { try LabelEdit(arguments: ["-"]) }
        #expect(throws: CorkFailure.self) {
            try LabelEdit(arguments: ["-nope"]).ops(for: board.cards["c1"]!, on: board)
        }
    }

    @Test func generatedIDsAreWellFormedAndDistinct() {
        var ids = Set<String>()
        for _ in 0..<200 {
            let id = IDGenerator.cardID()
            #expect(id.isValid && id.rawValue.hasPrefix("c") && id.rawValue.count == 11)
            ids.insert(id.rawValue)
        }
        #expect(ids.count == 200)
        #expect(IDGenerator.commentID().rawValue.hasPrefix("m"))
    }
}
