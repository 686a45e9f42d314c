import BoardClient
import BoardCore
import BoardWire
import Foundation
import Testing

@testable import CorkApp

/// `cork import`: planning a `cork export` file onto a board, and applying ops with the duplicate skip.
@Suite struct ImportSequenceTests {
    /// Applies ops like the server would: the reducer, as `actor`, reporting rejections as rejects.
    struct FakeServer {
        var board: TestBoard
        var seen: [Op] = []

        mutating func perform(_ op: Op, as actor: UserID = "alice") -> OpOutcome {
            seen.append(op)
            let context = board.context(actor)
            switch board.board.applying(op, context: context) {
            case .success(let change):
                if change.isNoop { return .noop(seq: board.board.seq) }
                board.board = change.board
                return .applied(seq: change.board.seq)
            case .failure(let rejection):
                return .rejected(OpRejection(board: board.board.id, mut: 1, rejection: rejection))
            }
        }
    }

    func source() -> TestBoard {
        var t = TestBoard.standard()
        t.apply(.addColumn(column: "review", name: "REVIEW", index: 2))
        t.apply(.setRemindHours(hours: 48))
        t.apply(.setWIPLimit(column: "review", limit: WIPLimit(limit: 3, hard: true)))
        t.apply(.moveCard(card: "c2", column: "review", placement: .bottom))
        t.apply(.addChecklistItem(card: "c1", item: "i1", text: "reproduce", done: true, index: nil))
        t.apply(.addComment(card: "c1", comment: "m1", text: "seen it"), as: "bob")
        t.apply(.closeCard(card: "c3"))
        t.apply(.addCard(AddCard(card: "c4", title: "Old idea", assignees: ["carol"])))
        t.apply(.archiveCard(card: "c4"))
        t.apply(.editCard(EditCard(card: "c1", milestone: .set("v1"))))
        return t
    }

    @Test func anExportedBoardIsCopiedOntoAnotherAndASecondImportChangesNothing() async throws {
        let exported = try BoardExport.json(source().board)
        var server = FakeServer(board: TestBoard(Board(id: "copy", name: "Copy", owner: "alice")))
        server.board.apply(.createLabel(label: "defect", name: "BUG", color: HexColor("#000000")!))
        let plan = try BoardImport(json: exported, onto: server.board.board)
        #expect(plan.cards == 4)
        #expect(plan.warnings == ["not members of board copy, so not assigned: carol"])

        let first = try await OpSequence.apply(plan.ops) { server.perform($0) }
        #expect(first.failures.isEmpty, "\(first.failures)")
        #expect(first.existingCards.isEmpty && first.skipped == 0)
        let copy = server.board.board
        #expect(copy.columns.map(\.name) == ["TODO", "DOING", "DONE", "REVIEW"])
        #expect(copy.column("review")?.wip == WIPLimit(limit: 3, hard: true))
        #expect(copy.remindHours == 48, "the reminder lead time comes with the board")
        let c1 = try #require(copy.cards["c1"])
        #expect(c1.labels == ["defect"], "an existing label with the same name is reused")
        #expect(c1.checklist.map(\.text) == ["reproduce"] && c1.checklist[0].done)
        #expect(c1.comments.map(\.text) == ["bob (2026-01-01): seen it"])
        #expect(copy.milestone(c1.milestone ?? "none")?.title == "v1.0")
        #expect(copy.cards["c2"]?.column == "review")
        #expect(copy.cards["c3"]?.closed == true && copy.cards["c3"]?.ref == "GH-12")
        #expect(copy.cards["c4"]?.archived == true && copy.cards["c4"]?.assignees == [])
        #expect(copy.orderedCards.map(\.title) == source().board.orderedCards.map(\.title))

        // Again: every card is already there; its checklist, comments, close and archive are skipped.
        let again = try BoardImport(json: exported, onto: copy)
        let seq = copy.seq
        let second = try await OpSequence.apply(again.ops) { server.perform($0) }
        #expect(second.applied == 0 && second.failures.isEmpty, "\(second)")
        #expect(second.existingCards == ["c1", "c4", "c3", "c2"], "board order: TODO, DOING, REVIEW")
        #expect(second.skipped == 4)
        #expect(server.board.board.seq == seq)
        #expect(second.summary == "applied 0 ops, 4 cards already there, 4 ops skipped")
    }

    @Test func aRefusedAddSkipsItsCardsLaterOpsAndOtherRejectsAreReported() async throws {
        var server = FakeServer(board: TestBoard.standard())
        let ops: [Op] = [
            .addCard(AddCard(card: "n1", column: "nowhere", title: "Lost")),
            .addComment(card: "n1", comment: "m1", text: "never sent"),
            .addCard(AddCard(card: "n2", title: "Dup", ref: "GH-12")),
            .closeCard(card: "n2"),
            .addCard(AddCard(card: "n3", title: "Fine")),
            .closeCard(card: "n3"),
            .closeCard(card: "n3"),
            .removeLabel(card: "c2", label: "nope"),
        ]
        let report = try await OpSequence.apply(ops) { server.perform($0) }
        #expect(report.applied == 2 && report.noops == 1)
        #expect(report.existingCards == ["n2"])
        #expect(report.skipped == 2)
        #expect(report.failures.map(\.code) == ["not_found", "not_found"])
        #expect(report.failures.map(\.index) == [0, 7])
        #expect(!server.seen.contains(.addComment(card: "n1", comment: "m1", text: "never sent")))
        #expect(report.summary == "applied 2 ops, 1 unchanged, 1 card already there, 2 ops skipped, 2 refused")
    }

    @Test func aFileThatIsNotABoardIsAUsageError() {
        #expect(throws: CorkFailure.self) { try BoardImport(json: Data("{\"lists\":[]}".utf8), onto: TestBoard().board) }
        #expect(throws: CorkFailure.self) { try BoardImport(json: Data("nope".utf8), onto: TestBoard().board) }
    }
}
