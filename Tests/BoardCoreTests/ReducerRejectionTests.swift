import Testing

@testable import BoardCore

/// One refused op (or undo) on the fixture board, after some setup.
struct RejectionCase: Sendable, CustomTestStringConvertible {
    /// What is being refused.
    var name: String
    /// The code it must be refused with.
    var code: Rejection.Code
    /// Ops applied first, each as (op, actor).
    var setup: [(Op, UserID)] = []
    /// The refused op; nil means "undo the first setup change".
    var op: Op?
    /// Who makes the refused op or undo.
    var actor: UserID = "alice"
    /// The board to start from.
    var board: Board = Fixtures.board

    var testDescription: String { "\(code.rawValue): \(name)" }

    /// The rejection, checking that neither entry point changes the board.
    func run() -> Rejection? {
        var board = board
        var changes: [Change] = []
        for (op, actor) in setup {
            guard let change = mustApply(op, to: &board, as: actor) else { return nil }
            changes.append(change)
        }
        if let op { return rejection(of: op, on: board, as: actor) }
        let first = changes[0]
        let context = ctx(actor, on: board)
        var mutated = board
        if case .success = mutated.applyUndo(of: first.activity, inverse: first.inverse, context: context) {
            Issue.record("the undo was accepted")
            return nil
        }
        #expect(mutated == board, "a refused undo leaves the board alone")
        switch board.applyingUndo(of: first.activity, inverse: first.inverse, context: context) {
        case .success:
            Issue.record("the undo was accepted")
            return nil
        case .failure(let r):
            return r
        }
    }

    static func of(_ code: Rejection.Code, _ name: String, _ op: Op?, as actor: UserID = "alice",
                   after setup: [(Op, UserID)] = [], board: Board = Fixtures.board) -> RejectionCase {
        RejectionCase(name: name, code: code, setup: setup, op: op, actor: actor, board: board)
    }

    /// At least one case per code, usually several.
    static let all: [RejectionCase] = [
        // not_found: each kind of missing thing
        .of(.notFound, "missing card", .closeCard(card: "zz")),
        .of(.notFound, "missing column for a card", .addCard(AddCard(card: "n1", column: "nope", title: "T"))),
        .of(.notFound, "missing column", .renameColumn(column: "nope", name: "X")),
        .of(.notFound, "missing label", .addLabel(card: "c1", label: "nope")),
        .of(.notFound, "missing milestone", .editCard(EditCard(card: "c1", milestone: .set("m9")))),
        .of(.notFound, "missing member", .assign(card: "c1", user: "zed")),
        .of(.notFound, "missing member to remove", .removeMember(user: "zed")),
        .of(.notFound, "missing comment", .deleteComment(card: "c3", comment: "k9")),
        .of(.notFound, "missing checklist item", .removeChecklistItem(card: "c3", item: "i9")),
        .of(.notFound, "missing neighbour", .moveCard(card: "c2", column: "todo", placement: Placement(before: "zz"))),
        .of(.notFound, "neighbour in another column", .moveCard(card: "c2", column: "todo", placement: Placement(after: "c4"))),
        // gone
        .of(.gone, "edit after purge", .editCard(EditCard(card: "c2", title: "T")), after: [(.purgeCard(card: "c2"), "alice")]),
        .of(.gone, "move after purge", .moveCard(card: "c2", column: "doing", placement: .top), as: "bob",
            after: [(.purgeCard(card: "c2"), "alice")]),
        .of(.gone, "comment after purge", .addComment(card: "c2", comment: "k1", text: "x"), as: "ci",
            after: [(.purgeCard(card: "c2"), "alice")]),
        // forbidden
        .of(.forbidden, "viewer edits", .editCard(EditCard(card: "c1", title: "T")), as: "vera"),
        .of(.forbidden, "viewer adds", .addCard(AddCard(card: "n1", title: "T")), as: "vera"),
        .of(.forbidden, "bot adds a column", .addColumn(column: "qa", name: "QA", index: nil), as: "ci"),
        .of(.forbidden, "bot sets a WIP limit", .setWIPLimit(column: "todo", limit: nil), as: "ci"),
        .of(.forbidden, "editor manages members", .setMember(user: "dan", role: .viewer, name: nil), as: "bob"),
        .of(.forbidden, "editor renames the board", .renameBoard(name: "Mine"), as: "bob"),
        .of(.forbidden, "editor purges", .purgeCard(card: "c1"), as: "bob"),
        .of(.forbidden, "owner edits someone's comment", .editComment(card: "c3", comment: "k1", text: "x")),
        .of(.forbidden, "bot deletes someone's comment", .deleteComment(card: "c3", comment: "k1"), as: "ci"),
        .of(.forbidden, "undo of someone else's change", nil, as: "bob",
            after: [(.editCard(EditCard(card: "c2", title: "Alice's")), "alice")]),
        // invalid
        .of(.invalid, "empty title", .addCard(AddCard(card: "n1", title: ""))),
        .of(.invalid, "control character in a title", .editCard(EditCard(card: "c1", title: "a\u{0}b"))),
        .of(.invalid, "bad card id", .addCard(AddCard(card: "n 1", title: "T"))),
        .of(.invalid, "bad label id", .createLabel(label: "l/1", name: "L", color: HexColor(red: 1, green: 2, blue: 3))),
        .of(.invalid, "after itself", .moveCard(card: "c1", column: "todo", placement: Placement(after: "c1"))),
        .of(.invalid, "negative index", .moveCard(card: "c1", column: "todo", placement: Placement(index: -2))),
        .of(.invalid, "negative checklist index", .addChecklistItem(card: "c3", item: "i3", text: "x", done: false, index: -1)),
        .of(.invalid, "duplicate column name", .addColumn(column: "qa", name: "Todo", index: nil)),
        .of(.invalid, "duplicate label name", .createLabel(label: "l2", name: "ui", color: HexColor(red: 1, green: 2, blue: 3))),
        .of(.invalid, "last owner steps down", .setMember(user: "alice", role: .viewer, name: nil)),
        .of(.invalid, "last owner leaves", .removeMember(user: "alice")),
        .of(.invalid, "last column", .removeColumn(column: "only"),
            board: Board(id: "b", name: "B", owner: "alice", columns: [Column(id: "only", name: "Only")])),
        .of(.invalid, "moving an archived card", .moveCard(card: "c6", column: "doing", placement: .bottom)),
        .of(.invalid, "WIP limit of zero", .setWIPLimit(column: "todo", limit: WIPLimit(limit: 0, hard: false))),
        .of(.invalid, "ref with a space", .editCard(EditCard(card: "c2", ref: .set("A 1")))),
        // conflict
        .of(.conflict, "stale description", .editCard(EditCard(card: "c3", description: "Bob's", baseSeq: 10)), as: "bob",
            after: [(.editCard(EditCard(card: "c3", description: "Alice's")), "alice")]),
        // wip_limit
        .of(.wipLimit, "add past a hard limit", .addCard(AddCard(card: "n1", column: "doing", title: "T")),
            after: [(.setWIPLimit(column: "doing", limit: WIPLimit(limit: 1, hard: true)), "alice")]),
        .of(.wipLimit, "move past a hard limit", .moveCard(card: "c1", column: "doing", placement: .top), as: "bob",
            after: [(.setWIPLimit(column: "doing", limit: WIPLimit(limit: 1, hard: true)), "alice")]),
        .of(.wipLimit, "restore past a hard limit", .restoreCard(card: "c6"),
            after: [(.setWIPLimit(column: "todo", limit: WIPLimit(limit: 3, hard: true)), "alice")]),
        // duplicate_ref
        .of(.duplicateRef, "add with a taken ref", .addCard(AddCard(card: "n1", title: "T", ref: "JIRA-1"))),
        .of(.duplicateRef, "edit to a taken ref", .editCard(EditCard(card: "c3", ref: .set("JIRA-1")))),
        // duplicate_id
        .of(.duplicateID, "card id", .addCard(AddCard(card: "c2", title: "T"))),
        .of(.duplicateID, "purged card id", .addCard(AddCard(card: "c2", title: "T")), after: [(.purgeCard(card: "c2"), "alice")]),
        .of(.duplicateID, "column id", .addColumn(column: "doing", name: "Doing 2", index: nil)),
        .of(.duplicateID, "label id", .createLabel(label: "ui", name: "UI 2", color: HexColor(red: 1, green: 2, blue: 3))),
        .of(.duplicateID, "milestone id", .createMilestone(milestone: "m1", title: "M", description: nil, due: nil)),
        .of(.duplicateID, "checklist item id", .addChecklistItem(card: "c3", item: "i2", text: "x", done: false, index: nil)),
        .of(.duplicateID, "comment id", .addComment(card: "c3", comment: "k1", text: "x")),
        // too_large
        .of(.tooLarge, "title of 201 characters", .addCard(AddCard(card: "n1", title: String(repeating: "t", count: 201)))),
        .of(.tooLarge, "description of 16 KiB + 1",
            .editCard(EditCard(card: "c1", description: String(repeating: "d", count: 16 * 1024 + 1)))),
        .of(.tooLarge, "label name of 41 characters",
            .createLabel(label: "x", name: String(repeating: "n", count: 41), color: HexColor(red: 1, green: 2, blue: 3))),
        .of(.tooLarge, "twenty-first label on a card", .addLabel(card: "c2", label: "x21"),
            after: (1...20).map { (Op.addLabel(card: "c2", label: LabelID("x\($0)")), UserID("alice")) },
            board: Fixtures.board(extraLabels: 21)),
        .of(.tooLarge, "chat of 4 KiB + 1", .chat(text: String(repeating: "c", count: 4097)), as: "vera"),
        .of(.tooLarge, "ref of 65 characters", .editCard(EditCard(card: "c2", ref: .set(String(repeating: "r", count: 65))))),
        // undo_conflict
        .of(.undoConflict, "title changed by someone else", nil,
            after: [(.editCard(EditCard(card: "c2", title: "Alice's")), "alice"),
                    (.editCard(EditCard(card: "c2", title: "Bob's")), "bob")]),
        .of(.undoConflict, "moved by someone else", nil, as: "bob",
            after: [(.moveCard(card: "c2", column: "doing", placement: .top), "bob"),
                    (.moveCard(card: "c2", column: "done", placement: .top), "alice")]),
        // not_undoable
        .of(.notUndoable, "chat", nil, as: "vera", after: [(.chat(text: "hi"), "vera")]),
        .of(.notUndoable, "purge", nil, after: [(.purgeCard(card: "c2"), "alice")]),
        .of(.notUndoable, "label delete", nil, as: "bob", after: [(.deleteLabel(label: "ui"), "bob")]),
        // not_empty
        .of(.notEmpty, "column with cards", .removeColumn(column: "todo")),
        .of(.notEmpty, "column with archived cards only", .removeColumn(column: "doing"),
            after: [(.archiveCard(card: "c4"), "alice")]),
        // blocked
        .of(.blocked, "blocked card into DOING", .moveCard(card: "c2", column: "doing", placement: .bottom), as: "bob",
            after: [(.blockCard(card: "c2", by: "c1"), "bob")]),
        .of(.blocked, "blocked card into a column marked in progress", .moveCard(card: "c2", column: "done", placement: .top),
            after: [(.blockCard(card: "c2", by: "c1"), "bob"), (.setInProgress(column: "done", on: true), "alice")]),
        // cycle
        .of(.cycle, "a card waiting for itself", .blockCard(card: "c1", by: "c1")),
        .of(.cycle, "a loop of two", .blockCard(card: "c1", by: "c2"), after: [(.blockCard(card: "c2", by: "c1"), "bob")]),
    ]
}

/// Every rejection code, produced at least once, with the board left exactly as it was.
@Suite struct ReducerRejectionTests {
    @Test(arguments: RejectionCase.all)
    func refused(_ c: RejectionCase) throws {
        let r = try #require(c.run())
        #expect(r.code == c.code, "\(r)")
        #expect(!r.message.isEmpty)
    }

    @Test func everyCodeIsProduced() {
        let produced = Set(RejectionCase.all.map(\.code))
        #expect(produced == Set(Rejection.Code.allCases))
        #expect(Rejection.Code.allCases.count == 14)
    }

    @Test func codesHaveTheirWireNames() {
        #expect(Rejection.Code.allCases.map(\.rawValue) == [
            "not_found", "gone", "forbidden", "invalid", "conflict", "wip_limit", "duplicate_ref", "duplicate_id",
            "too_large", "undo_conflict", "not_undoable", "not_empty", "blocked", "cycle",
        ])
        #expect(Rejection(.wipLimit, "full").description == "wip_limit: full")
    }

    @Test func aConflictCarriesTheCurrentDescription() throws {
        let c = try #require(RejectionCase.all.first { $0.code == .conflict })
        let r = try #require(c.run())
        #expect(r.current == .object(["description": .string("Alice's"), "seq": .int(11)]))
    }

    @Test func aDuplicateRefCarriesTheCardThatHasIt() throws {
        for c in RejectionCase.all where c.code == .duplicateRef {
            let r = try #require(c.run())
            #expect(r.current == .object(["card": .string("c1"), "number": .int(1)]))
        }
    }

    @Test func anUndoConflictCarriesTheCurrentValue() throws {
        let c = try #require(RejectionCase.all.first { $0.code == .undoConflict })
        let r = try #require(c.run())
        #expect(r.current == .string("Bob's"))
    }

    /// A viewer is refused every op but chat, whatever it touches, before anything else is checked.
    @Test(arguments: Fixtures.sampleOps)
    func viewersOnlyChat(_ op: Op) {
        if case .chat = op {
            #expect(throws: Never.self) { try accepted(op, on: Fixtures.board, as: "vera") }
        } else {
            #expect(rejectionCode(of: op, on: Fixtures.board, as: "vera") == .forbidden)
        }
    }

    /// What a bot may do: everything an editor may, except columns.
    @Test(arguments: Fixtures.sampleOps)
    func botsAndEditors(_ op: Op) {
        let ownerOnly = ["board.rename", "board.remind", "member.set", "member.remove", "card.purge"]
        let columns = ["column.add", "column.rename", "column.move", "column.remove", "column.wip", "column.in_progress"]
        let bot = Board.authorize(op, role: .bot)
        let editor = Board.authorize(op, role: .editor)
        #expect((bot?.code == .forbidden) == (ownerOnly + columns).contains(op.kind))
        #expect((editor?.code == .forbidden) == ownerOnly.contains(op.kind))
        #expect(Board.authorize(op, role: .owner) == nil)
    }
}
