import Testing

@testable import BoardCore

/// An undoable op on a board, by an actor.
struct UndoCase: Sendable, CustomTestStringConvertible {
    var op: Op
    var actor: UserID
    var board: Board = Fixtures.board

    var testDescription: String { "\(op.kind) by \(actor)" }

    /// Someone else with a role that could make the same op.
    var otherActor: UserID { actor == "alice" ? "bob" : "alice" }

    /// One case per undoable op kind (moves twice: across and within a column).
    static let all: [UndoCase] = {
        var m1Closed = Fixtures.board
        m1Closed.milestones[0].closed = true
        var c2Blocked = Fixtures.board
        c2Blocked.cards["c2"]?.blockedBy = ["c1"]
        return [
            UndoCase(op: .renameBoard(name: "Roadmap"), actor: "alice"),
            UndoCase(op: .setRemindHours(hours: 2), actor: "alice"),
            UndoCase(op: .addColumn(column: "qa", name: "QA", index: 1), actor: "bob"),
            UndoCase(op: .renameColumn(column: "doing", name: "In progress"), actor: "bob"),
            UndoCase(op: .moveColumn(column: "todo", index: 2), actor: "alice"),
            UndoCase(op: .setWIPLimit(column: "doing", limit: WIPLimit(limit: 2, hard: true)), actor: "alice"),
            UndoCase(op: .addCard(AddCard(card: "n1", column: "doing", title: "New", labels: ["ui"])), actor: "bob"),
            UndoCase(
                op: .editCard(
                    EditCard(
                        card: "c1", title: "Fix sign-in", description: "Steps", due: .set(Day(year: 2026, month: 1, day: 9)!),
                        milestone: .clear, ref: .set("JIRA-100"))), actor: "bob"),
            UndoCase(op: .moveCard(card: "c2", column: "doing", placement: Placement(after: "c4")), actor: "ci"),
            UndoCase(op: .moveCard(card: "c1", column: "todo", placement: .bottom), actor: "alice"),
            UndoCase(op: .addLabel(card: "c2", label: "ui"), actor: "ci"),
            UndoCase(op: .removeLabel(card: "c1", label: "bug"), actor: "bob"),
            UndoCase(op: .assign(card: "c2", user: "alice"), actor: "bob"),
            UndoCase(op: .unassign(card: "c1", user: "alice"), actor: "alice"),
            UndoCase(op: .closeCard(card: "c2"), actor: "bob"),
            UndoCase(op: .reopenCard(card: "c5"), actor: "alice"),
            UndoCase(op: .archiveCard(card: "c2"), actor: "bob"),
            UndoCase(op: .restoreCard(card: "c6"), actor: "alice"),
            UndoCase(op: .addChecklistItem(card: "c3", item: "i3", text: "Publish", done: false, index: 1), actor: "ci"),
            UndoCase(op: .editChecklistItem(card: "c3", item: "i1", text: "Draft it", done: true), actor: "bob"),
            UndoCase(op: .removeChecklistItem(card: "c3", item: "i1"), actor: "alice"),
            UndoCase(op: .addComment(card: "c3", comment: "k2", text: "Ship it"), actor: "ci"),
            UndoCase(op: .editComment(card: "c3", comment: "k1", text: "Looks great"), actor: "bob"),
            UndoCase(op: .createLabel(label: "perf", name: "Perf", color: HexColor(red: 9, green: 9, blue: 9)), actor: "bob"),
            UndoCase(op: .updateLabel(label: "bug", name: "Defect", color: HexColor(red: 0, green: 0, blue: 0)), actor: "alice"),
            UndoCase(op: .createMilestone(milestone: "m2", title: "v2", description: "Next", due: nil), actor: "bob"),
            UndoCase(op: .updateMilestone(milestone: "m1", title: "GA", description: nil, due: .clear), actor: "alice"),
            UndoCase(op: .closeMilestone(milestone: "m1"), actor: "ci"),
            UndoCase(op: .reopenMilestone(milestone: "m1"), actor: "bob", board: m1Closed),
            UndoCase(op: .setInProgress(column: "done", on: true), actor: "alice"),
            UndoCase(op: .blockCard(card: "c2", by: "c1"), actor: "bob"),
            UndoCase(op: .unblockCard(card: "c2", by: "c1"), actor: "ci", board: c2Blocked),
            UndoCase(op: .setRecurrence(card: "c1", recurrence: Recurrence(every: .day)), actor: "bob"),
            UndoCase(op: .watchCard(card: "c1"), actor: "bob"),
            UndoCase(op: .unwatchCard(card: "c1"), actor: "ci", board: {
                var board = Fixtures.board
                board.cards["c1"]?.watchers = ["ci"]
                return board
            }()),
        ]
    }()

    /// The kinds that cannot be undone.
    static let notUndoableKinds: Set<String> = [
        "member.set", "member.remove", "column.remove", "card.purge", "comment.delete", "label.delete",
        "milestone.delete", "chat",
    ]
}

/// The board with everything an undo legitimately leaves behind (seq, who touched a card last and when, the seq of
/// the description, a comment's edit time) wiped, so a board and its undone copy compare equal.
func withoutBookkeeping(_ board: Board) -> Board {
    var board = board
    board.seq = 0
    for id in board.cards.keys {
        board.cards[id]!.updatedBy = "nobody"
        board.cards[id]!.updatedAt = Timestamp(milliseconds: 0)
        board.cards[id]!.descriptionSeq = 0
        for i in board.cards[id]!.comments.indices { board.cards[id]!.comments[i].editedAt = nil }
    }
    return board
}

@Suite struct UndoTests {
    private func undo(_ change: Change, on board: Board, as actor: UserID) -> Result<Change, Rejection> {
        board.applyingUndo(of: change.activity, inverse: change.inverse, context: ctx(actor, on: board))
    }

    /// The reason a change has no undo is said in words: the page and cork show it as is, and it had named the op
    /// (`comment.delete cannot be undone`).
    @Test func whyAChangeHasNoUndoIsSaidInWords() {
        for kind in UndoCase.notUndoableKinds {
            let activity = Activity(seq: 9, at: Timestamp(milliseconds: 0), actor: "alice", kind: kind, changes: [:])
            guard case .failure(let refusal) = Fixtures.board.undoCheck(of: activity, inverse: nil, by: "alice") else {
                Issue.record("\(kind) had an undo")
                continue
            }
            #expect(refusal.code == .notUndoable)
            #expect(!refusal.message.hasPrefix(kind + " "), "\(kind): \(refusal.message)")
        }
    }

    @Test func everyOpKindIsUndoableOrListedAsNot() {
        let undoable = Set(UndoCase.all.map(\.op.kind))
        #expect(undoable.isDisjoint(with: UndoCase.notUndoableKinds))
        #expect(undoable.union(UndoCase.notUndoableKinds) == Set(Op.allKinds))
        #expect(Op.allKinds.count == 42)
    }

    @Test(arguments: UndoCase.all)
    func undoRightAfterRestoresTheBoard(_ c: UndoCase) throws {
        let change = try accepted(c.op, on: c.board, as: c.actor)
        #expect(!change.isNoop)
        let inverse = try #require(change.inverse)
        let undone = try undo(change, on: change.board, as: c.actor).get()
        #expect(!undone.isNoop)
        #expect(undone.board.seq == c.board.seq + 2)
        #expect(undone.activity.undoOf == change.activity.seq)
        #expect(undone.activity.seq == change.activity.seq + 1)
        #expect(undone.activity.actor == c.actor)
        #expect(undone.activity.kind == inverse.kind)
        let subject = Subject(of: c.op)
        if case .addCard(let add) = c.op {
            // Undoing an add archives the card.
            var expected = change.board
            expected.cards[add.card]!.archived = true
            #expect(withoutBookkeeping(undone.board) == withoutBookkeeping(expected))
            #expect(undone.activity.changes == ["archived": fc(.bool(false), .bool(true))])
            #expect(undone.activity.card == add.card)
        } else {
            #expect(undone.board.fields(of: subject) == c.board.fields(of: subject))
            #expect(withoutBookkeeping(undone.board) == withoutBookkeeping(c.board))
            let swapped = change.activity.changes.mapValues { fc($0.new, $0.old) }
            #expect(undone.activity.changes == swapped)
        }
    }

    @Test(arguments: UndoCase.all)
    func undoingTheUndoRedoes(_ c: UndoCase) throws {
        let change = try accepted(c.op, on: c.board, as: c.actor)
        let undone = try undo(change, on: change.board, as: c.actor).get()
        guard undone.inverse != nil else {
            // Undoing a create deletes the thing, and deletions are not undoable.
            #expect(UndoCase.notUndoableKinds.contains(undone.activity.kind))
            #expect(["label.create", "milestone.create", "comment.add", "column.add"].contains(c.op.kind))
            return
        }
        let redone = try undo(undone, on: undone.board, as: c.actor).get()
        let subject = Subject(of: c.op)
        #expect(redone.board.fields(of: subject) == change.board.fields(of: subject))
        #expect(redone.activity.undoOf == undone.activity.seq)
    }

    @Test(arguments: UndoCase.all)
    func onlyTheActorUndoes(_ c: UndoCase) throws {
        let change = try accepted(c.op, on: c.board, as: c.actor)
        guard case .failure(let r) = undo(change, on: change.board, as: c.otherActor) else {
            Issue.record("\(c.otherActor) undid \(c.actor)'s change")
            return
        }
        #expect(r.code == .forbidden)
    }

    @Test(arguments: UndoCase.all)
    func undoingTwiceIsAConflict(_ c: UndoCase) throws {
        let change = try accepted(c.op, on: c.board, as: c.actor)
        let undone = try undo(change, on: change.board, as: c.actor).get()
        guard case .failure(let r) = undo(change, on: undone.board, as: c.actor) else {
            Issue.record("the same change was undone twice")
            return
        }
        #expect(r.code == .undoConflict)
    }

    @Test func undoByTheMutatingPath() throws {
        var board = Fixtures.board
        let change = try #require(mustApply(.closeCard(card: "c2"), to: &board, as: "bob"))
        let result = try board.applyUndo(of: change.activity, inverse: change.inverse, context: ctx("bob", on: board)).get()
        #expect(board.cards["c2"]?.closed == false)
        #expect(board.seq == 12)
        #expect(result.activity.undoOf == 11)
        #expect(result.inverse == .closeCard(card: "c2"))
    }

    // MARK: Conflicts

    @Test func someoneElseChangingTheFieldBlocksTheUndo() throws {
        var board = Fixtures.board
        let mine = try #require(mustApply(.editCard(EditCard(card: "c2", title: "Alice's")), to: &board))
        mustApply(.editCard(EditCard(card: "c2", title: "Bob's")), to: &board, as: "bob")
        let before = board
        guard case .failure(let r) = undo(mine, on: board, as: "alice") else {
            Issue.record("the undo overwrote bob's title")
            return
        }
        #expect(r.code == .undoConflict)
        #expect(r.current == .string("Bob's"))
        // In a person's words: no seq, which nothing on a user's screen shows.
        #expect(r.message == "its title was changed since; undoing would overwrite that")
        #expect(board == before)
    }

    @Test func someoneElseChangingAnotherFieldDoesNotBlockTheUndo() throws {
        var board = Fixtures.board
        let mine = try #require(mustApply(.editCard(EditCard(card: "c2", title: "Alice's")), to: &board))
        let due = Day(year: 2026, month: 5, day: 5)!
        mustApply(.editCard(EditCard(card: "c2", due: .set(due))), to: &board, as: "bob")
        let undone = try undo(mine, on: board, as: "alice").get()
        #expect(undone.board.cards["c2"]?.title == "Design settings")
        #expect(undone.board.cards["c2"]?.due == due, "bob's due date stays")
    }

    @Test func labelsAndAssigneesUndoAsSets() throws {
        var board = Fixtures.board
        let mine = try #require(mustApply(.addLabel(card: "c2", label: "ui"), to: &board))
        mustApply(.addLabel(card: "c2", label: "docs"), to: &board, as: "bob")
        let undone = try undo(mine, on: board, as: "alice").get()
        #expect(undone.board.cards["c2"]?.labels == ["docs"], "bob's label stays")

        mustApply(.removeLabel(card: "c2", label: "ui"), to: &board, as: "bob")
        guard case .failure(let r) = undo(mine, on: board, as: "alice") else {
            Issue.record("undo of a label someone else already removed")
            return
        }
        #expect(r.code == .undoConflict)

        var assigned = Fixtures.board
        let assign = try #require(mustApply(.assign(card: "c2", user: "alice"), to: &assigned, as: "bob"))
        mustApply(.assign(card: "c2", user: "ci"), to: &assigned)
        #expect(try undo(assign, on: assigned, as: "bob").get().board.cards["c2"]?.assignees == ["bob", "ci"])
    }

    @Test func aMoveUndoIsBlockedWhenSomeoneMovedTheCard() throws {
        var board = Fixtures.board
        let mine = try #require(mustApply(.moveCard(card: "c2", column: "doing", placement: .top), to: &board, as: "bob"))
        mustApply(.moveCard(card: "c2", column: "doing", placement: .bottom), to: &board)
        guard case .failure(let r) = undo(mine, on: board, as: "bob") else {
            Issue.record("undo of a move someone else redid")
            return
        }
        #expect(r.code == .undoConflict)
    }

    @Test func closingAgainAfterAReopenBlocksNothingButAReopenDoes() throws {
        var board = Fixtures.board
        let mine = try #require(mustApply(.closeCard(card: "c2"), to: &board, as: "bob"))
        mustApply(.reopenCard(card: "c2"), to: &board)
        #expect(throws: Rejection.self) { try undo(mine, on: board, as: "bob").get() }
        mustApply(.closeCard(card: "c2"), to: &board)
        #expect(try undo(mine, on: board, as: "bob").get().board.cards["c2"]?.closed == false,
                "the field holds what bob set again, so his undo goes through")
    }

    // MARK: Not undoable

    @Test(arguments: [
        (Op.chat(text: "hi"), UserID("vera")), (.purgeCard(card: "c2"), "alice"), (.deleteLabel(label: "ui"), "bob"),
        (.deleteMilestone(milestone: "m1"), "bob"), (.deleteComment(card: "c3", comment: "k1"), "bob"),
        (.setMember(user: "dan", role: .viewer, name: nil), "alice"), (.removeMember(user: "ci"), "alice"),
        (.removeColumn(column: "qa"), "alice"),
    ] as [(Op, UserID)])
    func notUndoable(_ op: Op, _ actor: UserID) throws {
        var board = Fixtures.board
        board.columns.append(Column(id: "qa", name: "QA"))
        let change = try accepted(op, on: board, as: actor)
        #expect(change.inverse == nil)
        guard case .failure(let r) = undo(change, on: change.board, as: actor) else {
            Issue.record("\(op.kind) was undone")
            return
        }
        #expect(r.code == .notUndoable)
        #expect(!r.message.isEmpty && !r.message.hasPrefix(op.kind + " "), "\(r.message)")
    }

    @Test func aNoopHasNothingToUndo() throws {
        let change = try accepted(.closeCard(card: "c5"), on: Fixtures.board)
        #expect(change.isNoop)
        #expect(change.inverse == nil)
    }

    // MARK: The undo is an op like any other

    @Test func undoAfterAPurgeIsRefused() throws {
        var board = Fixtures.board
        let mine = try #require(mustApply(.closeCard(card: "c2"), to: &board, as: "bob"))
        mustApply(.purgeCard(card: "c2"), to: &board)
        guard case .failure(let r) = undo(mine, on: board, as: "bob") else {
            Issue.record("undo on a purged card")
            return
        }
        // The card can never come back: `gone`, as for any op on it, not a conflict with a `current` of null.
        #expect(r.code == .gone, "\(r)")
        #expect(board.purged.contains("c2"))
    }

    @Test func undoIsCheckedAgainstTheActorsCurrentRole() throws {
        var board = Fixtures.board
        let mine = try #require(mustApply(.addColumn(column: "qa", name: "QA", index: nil), to: &board, as: "bob"))
        mustApply(.setMember(user: "bob", role: .bot, name: nil), to: &board)
        guard case .failure(let r) = undo(mine, on: board, as: "bob") else {
            Issue.record("a bot removed a column by undoing")
            return
        }
        #expect(r.code == .forbidden)
    }

    @Test func undoOfAColumnAddThatNowHoldsCardsIsNotEmpty() throws {
        var board = Fixtures.board
        let mine = try #require(mustApply(.addColumn(column: "qa", name: "QA", index: nil), to: &board, as: "bob"))
        mustApply(.moveCard(card: "c2", column: "qa", placement: .top), to: &board)
        guard case .failure(let r) = undo(mine, on: board, as: "bob") else {
            Issue.record("undo removed a column with cards")
            return
        }
        #expect(r.code == .notEmpty)
    }

    @Test func undoOfALabelOrMilestoneCreationIsRefusedWhileACardHasIt() throws {
        var board = Fixtures.board
        let label = try #require(
            mustApply(.createLabel(label: "urgent", name: "urgent", color: HexColor(red: 1, green: 2, blue: 3)), to: &board))
        let milestone = try #require(
            mustApply(.createMilestone(milestone: "s48", title: "Sprint 48", description: nil, due: nil), to: &board))
        mustApply(.addLabel(card: "c2", label: "urgent"), to: &board, as: "bob")
        mustApply(.addLabel(card: "c3", label: "urgent"), to: &board, as: "bob")
        mustApply(.editCard(EditCard(card: "c2", milestone: .set("s48"))), to: &board, as: "bob")
        // The deletion would take bob's work off his cards, and it could not be redone.
        guard case .failure(let r) = undo(label, on: board, as: "alice") else {
            Issue.record("the undo took the label off bob's cards")
            return
        }
        #expect(r.code == .undoConflict)
        #expect(r.message == "label urgent is on 2 cards now; undoing its creation would take it off those cards (remove it from them first)")
        #expect(r.current == .int(2))
        guard case .failure(let m) = undo(milestone, on: board, as: "alice") else {
            Issue.record("the undo took the milestone off bob's card")
            return
        }
        #expect(m.message == "milestone Sprint 48 has 1 card now; undoing its creation would take it off that card (remove it from it first)")
        // Once no card has them, their creations are undone.
        mustApply(.removeLabel(card: "c2", label: "urgent"), to: &board, as: "bob")
        mustApply(.removeLabel(card: "c3", label: "urgent"), to: &board, as: "bob")
        mustApply(.editCard(EditCard(card: "c2", milestone: .clear)), to: &board, as: "bob")
        #expect(try undo(label, on: board, as: "alice").get().board.labels.contains { $0.id == "urgent" } == false)
        #expect(try undo(milestone, on: board, as: "alice").get().board.milestones.contains { $0.id == "s48" } == false)
    }

    @Test func undoOfADescriptionEditTakesANewDescriptionSeq() throws {
        var board = Fixtures.board
        let mine = try #require(mustApply(.editCard(EditCard(card: "c3", description: "New", baseSeq: 10)), to: &board))
        let undone = try undo(mine, on: board, as: "alice").get()
        #expect(undone.board.cards["c3"]?.description == "Outline")
        #expect(undone.board.cards["c3"]?.descriptionSeq == 12)
        #expect(undone.activity.undoOf == 11)
    }

    @Test func undoCheckNamesTheInverse() throws {
        var board = Fixtures.board
        let mine = try #require(mustApply(.archiveCard(card: "c2"), to: &board, as: "bob"))
        #expect(try board.undoCheck(of: mine.activity, inverse: mine.inverse, by: "bob").get() == .restoreCard(card: "c2"))
        #expect(throws: Rejection.self) { try board.undoCheck(of: mine.activity, inverse: mine.inverse, by: "ci").get() }
    }
}
