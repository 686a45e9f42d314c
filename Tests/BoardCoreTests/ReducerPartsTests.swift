import Testing

@testable import BoardCore

/// Checklist, comment, label and milestone ops.
///
/// Card c3 has checklist items i1 "Draft" (open) and i2 "Review" (done) and comment k1 by bob.
@Suite struct ReducerPartsTests {
    let board = Fixtures.board

    // MARK: checklist.add

    @Test func addAChecklistItemAtTheEnd() throws {
        let change = try accepted(
            .addChecklistItem(card: "c3", item: "i3", text: "Publish", done: false, index: nil), on: board, as: "ci")
        #expect(
            change.board.cards["c3"]?.checklist
                == [
                    ChecklistItem(id: "i1", text: "Draft"), ChecklistItem(id: "i2", text: "Review", done: true),
                    ChecklistItem(id: "i3", text: "Publish"),
                ])
        #expect(change.board.cards["c3"]?.updatedBy == "ci")
        #expect(change.board.cards["c3"]?.updatedAt == stamp(11))
        #expect(
            change.activity
                == Activity(
                    seq: 11, at: stamp(11), actor: "ci", kind: "checklist.add", card: "c3", item: "i3",
                    changes: ["text": fc(.null, .string("Publish")), "done": fc(.null, .bool(false))]))
        #expect(change.inverse == .removeChecklistItem(card: "c3", item: "i3"))
    }

    @Test func addADoneChecklistItemAtAnIndex() throws {
        let first = try accepted(
            .addChecklistItem(card: "c3", item: "i0", text: "Plan", done: true, index: 0), on: board)
        #expect(first.board.cards["c3"]?.checklist.map(\.id) == ["i0", "i1", "i2"])
        #expect(first.board.cards["c3"]?.checklist.first?.done == true)
        #expect(first.activity.changes["done"] == fc(.null, .bool(true)))
        let clamped = try accepted(
            .addChecklistItem(card: "c3", item: "i9", text: "Later", done: false, index: 40), on: board)
        #expect(clamped.board.cards["c3"]?.checklist.map(\.id) == ["i1", "i2", "i9"])
    }

    @Test func checklistAddRejections() {
        func code(_ card: CardID = "c3", item: ChecklistItemID, _ text: String, index: Int? = nil, as actor: UserID = "alice")
            -> Rejection.Code?
        {
            rejectionCode(of: .addChecklistItem(card: card, item: item, text: text, done: false, index: index), on: board, as: actor)
        }
        #expect(code(item: "i1", "Again") == .duplicateID)
        #expect(code(item: "i 3", "Bad id") == .invalid)
        #expect(code(item: "i3", "") == .invalid)
        #expect(code(item: "i3", "two\nlines") == .invalid)
        #expect(code(item: "i3", String(repeating: "c", count: 201)) == .tooLarge)
        #expect(code(item: "i3", "Neg", index: -1) == .invalid)
        #expect(code("zz", item: "i3", "No card") == .notFound)
        #expect(code(item: "i3", "Viewer", as: "vera") == .forbidden)
    }

    @Test func aChecklistHoldsAtMostAHundredItems() {
        var board = board
        for i in 3...Limits.checklistItemsMax {
            mustApply(.addChecklistItem(card: "c3", item: ChecklistItemID("i\(i)"), text: "Step \(i)", done: false, index: nil),
                      to: &board)
        }
        #expect(board.cards["c3"]?.checklist.count == 100)
        #expect(
            rejectionCode(of: .addChecklistItem(card: "c3", item: "one-more", text: "x", done: false, index: nil), on: board)
                == .tooLarge)
    }

    // MARK: checklist.edit / checklist.remove

    @Test func tickAChecklistItem() throws {
        let change = try accepted(.editChecklistItem(card: "c3", item: "i1", text: nil, done: true), on: board, as: "bob")
        #expect(change.board.cards["c3"]?.checklist.first == ChecklistItem(id: "i1", text: "Draft", done: true))
        #expect(
            change.activity
                == Activity(
                    seq: 11, at: stamp(11), actor: "bob", kind: "checklist.edit", card: "c3", item: "i1",
                    changes: ["done": fc(.bool(false), .bool(true))]))
        #expect(change.inverse == .editChecklistItem(card: "c3", item: "i1", text: nil, done: false))
    }

    @Test func rewordAChecklistItem() throws {
        let change = try accepted(.editChecklistItem(card: "c3", item: "i2", text: "Proofread", done: false), on: board)
        #expect(change.board.cards["c3"]?.checklist.last == ChecklistItem(id: "i2", text: "Proofread", done: false))
        #expect(change.activity.changes == [
            "text": fc(.string("Review"), .string("Proofread")), "done": fc(.bool(true), .bool(false)),
        ])
        #expect(change.inverse == .editChecklistItem(card: "c3", item: "i2", text: "Review", done: true))
        expectNoop(.editChecklistItem(card: "c3", item: "i2", text: "Review", done: true), on: board)
        expectNoop(.editChecklistItem(card: "c3", item: "i2", text: nil, done: nil), on: board)
    }

    @Test func removeAChecklistItem() throws {
        let change = try accepted(.removeChecklistItem(card: "c3", item: "i1"), on: board)
        #expect(change.board.cards["c3"]?.checklist == [ChecklistItem(id: "i2", text: "Review", done: true)])
        #expect(
            change.activity
                == Activity(
                    seq: 11, at: stamp(11), actor: "alice", kind: "checklist.remove", card: "c3", item: "i1",
                    changes: ["text": fc(.string("Draft"), .null), "done": fc(.bool(false), .null)]))
        #expect(change.inverse == .addChecklistItem(card: "c3", item: "i1", text: "Draft", done: false, index: 0))
    }

    @Test func checklistEditAndRemoveRejections() {
        #expect(rejectionCode(of: .editChecklistItem(card: "c3", item: "i9", text: "x", done: nil), on: board) == .notFound)
        #expect(rejectionCode(of: .editChecklistItem(card: "c2", item: "i1", text: "x", done: nil), on: board) == .notFound)
        #expect(rejectionCode(of: .editChecklistItem(card: "zz", item: "i1", text: nil, done: true), on: board) == .notFound)
        #expect(rejectionCode(of: .editChecklistItem(card: "c3", item: "i1", text: " ", done: nil), on: board) == .invalid)
        #expect(rejectionCode(of: .removeChecklistItem(card: "c3", item: "i9"), on: board) == .notFound)
        #expect(rejectionCode(of: .removeChecklistItem(card: "zz", item: "i1"), on: board) == .notFound)
        #expect(rejectionCode(of: .removeChecklistItem(card: "c3", item: "i1"), on: board, as: "vera") == .forbidden)
    }

    // MARK: comment.add / comment.edit / comment.delete

    @Test func addAComment() throws {
        let change = try accepted(.addComment(card: "c3", comment: "k2", text: "Ship it\nsoon"), on: board, as: "ci")
        #expect(
            change.board.cards["c3"]?.comments.last
                == Comment(id: "k2", author: "ci", at: stamp(11), text: "Ship it\nsoon"))
        #expect(change.board.cards["c3"]?.comments.count == 2)
        #expect(
            change.activity
                == Activity(
                    seq: 11, at: stamp(11), actor: "ci", kind: "comment.add", card: "c3", comment: "k2",
                    text: "Ship it\nsoon", changes: ["text": fc(.null, .string("Ship it\nsoon"))]))
        #expect(change.inverse == .deleteComment(card: "c3", comment: "k2"))
    }

    @Test func commentAddRejections() {
        #expect(rejectionCode(of: .addComment(card: "c3", comment: "k1", text: "x"), on: board) == .duplicateID)
        #expect(rejectionCode(of: .addComment(card: "c3", comment: "k/2", text: "x"), on: board) == .invalid)
        #expect(rejectionCode(of: .addComment(card: "c3", comment: "k2", text: "\n"), on: board) == .invalid)
        #expect(rejectionCode(of: .addComment(card: "c3", comment: "k2", text: "esc\u{1B}"), on: board) == .invalid)
        #expect(
            rejectionCode(of: .addComment(card: "c3", comment: "k2", text: String(repeating: "k", count: 8193)), on: board)
                == .tooLarge)
        #expect(rejectionCode(of: .addComment(card: "zz", comment: "k2", text: "x"), on: board) == .notFound)
        #expect(rejectionCode(of: .addComment(card: "c3", comment: "k2", text: "x"), on: board, as: "vera") == .forbidden)
    }

    @Test func editOnesOwnComment() throws {
        let change = try accepted(.editComment(card: "c3", comment: "k1", text: "Looks great"), on: board, as: "bob")
        let comment = try #require(change.board.cards["c3"]?.comments.first)
        #expect(comment.text == "Looks great")
        #expect(comment.editedAt == stamp(11))
        #expect(comment.author == "bob")
        #expect(comment.at == Fixtures.board.cards["c3"]?.comments.first?.at)
        #expect(
            change.activity
                == Activity(
                    seq: 11, at: stamp(11), actor: "bob", kind: "comment.edit", card: "c3", comment: "k1",
                    text: "Looks great", changes: ["text": fc(.string("Looks good"), .string("Looks great"))]))
        #expect(change.inverse == .editComment(card: "c3", comment: "k1", text: "Looks good"))
        expectNoop(.editComment(card: "c3", comment: "k1", text: "Looks good"), on: board, as: "bob")
    }

    @Test func onlyTheAuthorEditsAComment() {
        #expect(rejectionCode(of: .editComment(card: "c3", comment: "k1", text: "Mine now"), on: board) == .forbidden,
                "not even an owner")
        #expect(rejectionCode(of: .editComment(card: "c3", comment: "k1", text: "x"), on: board, as: "ci") == .forbidden)
        #expect(rejectionCode(of: .editComment(card: "c3", comment: "k9", text: "x"), on: board, as: "bob") == .notFound)
        #expect(rejectionCode(of: .editComment(card: "c3", comment: "k1", text: ""), on: board, as: "bob") == .invalid)
    }

    @Test func deleteOnesOwnComment() throws {
        let change = try accepted(.deleteComment(card: "c3", comment: "k1"), on: board, as: "bob")
        #expect(change.board.cards["c3"]?.comments == [])
        #expect(
            change.activity
                == Activity(
                    seq: 11, at: stamp(11), actor: "bob", kind: "comment.delete", card: "c3", comment: "k1",
                    changes: ["text": fc(.string("Looks good"), .null)]))
        #expect(change.inverse == nil, "deleted comments are not undoable")
    }

    @Test func anOwnerDeletesAnyCommentOthersOnlyTheirOwn() throws {
        #expect(try accepted(.deleteComment(card: "c3", comment: "k1"), on: board).board.cards["c3"]?.comments == [])
        #expect(rejectionCode(of: .deleteComment(card: "c3", comment: "k1"), on: board, as: "ci") == .forbidden)
        var board = board
        mustApply(.addComment(card: "c3", comment: "k2", text: "mine"), to: &board, as: "ci")
        #expect(rejectionCode(of: .deleteComment(card: "c3", comment: "k2"), on: board, as: "bob") == .forbidden)
        #expect(rejectionCode(of: .deleteComment(card: "c3", comment: "k9"), on: board) == .notFound)
    }

    // MARK: label.create / label.update / label.delete

    @Test func createALabel() throws {
        let color = HexColor(red: 0, green: 0xff, blue: 0)
        let change = try accepted(.createLabel(label: "perf", name: "Perf", color: color), on: board, as: "ci")
        #expect(change.board.labels.last == Label(id: "perf", name: "Perf", color: color))
        #expect(change.board.labels.count == 4)
        #expect(
            change.activity
                == Activity(
                    seq: 11, at: stamp(11), actor: "ci", kind: "label.create", label: "perf",
                    changes: ["name": fc(.null, .string("Perf")), "color": fc(.null, .string("#00ff00"))]))
        #expect(change.inverse == .deleteLabel(label: "perf"))
    }

    @Test func labelCreateRejections() {
        let c = HexColor(red: 1, green: 1, blue: 1)
        #expect(rejectionCode(of: .createLabel(label: "bug", name: "Other", color: c), on: board) == .duplicateID)
        #expect(rejectionCode(of: .createLabel(label: "bug2", name: "BUG", color: c), on: board) == .invalid,
                "names are unique ignoring case")
        #expect(rejectionCode(of: .createLabel(label: "b g", name: "B", color: c), on: board) == .invalid)
        #expect(rejectionCode(of: .createLabel(label: "x", name: "", color: c), on: board) == .invalid)
        #expect(rejectionCode(of: .createLabel(label: "x", name: String(repeating: "l", count: 41), color: c), on: board)
                == .tooLarge)
        #expect(rejectionCode(of: .createLabel(label: "x", name: "X", color: c), on: board, as: "vera") == .forbidden)
    }

    @Test func labelNamesOfFortyCharactersAreAccepted() throws {
        let name = String(repeating: "l", count: 40)
        let change = try accepted(.createLabel(label: "x", name: name, color: HexColor(red: 1, green: 1, blue: 1)), on: board)
        #expect(change.board.label("x")?.name == name)
    }

    @Test func aBoardHasAtMostAHundredLabels() {
        let board = Fixtures.board(extraLabels: Limits.labelsMax - 3)
        #expect(board.labels.count == 100)
        #expect(
            rejectionCode(of: .createLabel(label: "x", name: "One more", color: HexColor(red: 1, green: 1, blue: 1)), on: board)
                == .tooLarge)
    }

    @Test func renameAndRecolourALabel() throws {
        let renamed = try accepted(.updateLabel(label: "bug", name: "Defect", color: nil), on: board)
        #expect(renamed.board.label("bug") == Label(id: "bug", name: "Defect", color: Fixtures.bug.color))
        #expect(
            renamed.activity
                == Activity(
                    seq: 11, at: stamp(11), actor: "alice", kind: "label.update", label: "bug",
                    changes: ["name": fc(.string("Bug"), .string("Defect"))]))
        #expect(renamed.inverse == .updateLabel(label: "bug", name: "Bug", color: nil))

        let black = HexColor(red: 0, green: 0, blue: 0)
        let recoloured = try accepted(.updateLabel(label: "ui", name: nil, color: black), on: board)
        #expect(recoloured.board.label("ui")?.color == black)
        #expect(recoloured.activity.changes == ["color": fc(.string("#0075ca"), .string("#000000"))])
        #expect(recoloured.inverse == .updateLabel(label: "ui", name: nil, color: Fixtures.ui.color))

        #expect(try accepted(.updateLabel(label: "bug", name: "BUG", color: nil), on: board).board.label("bug")?.name == "BUG",
                "a label may change the case of its own name")
        expectNoop(.updateLabel(label: "bug", name: "Bug", color: Fixtures.bug.color), on: board)
    }

    @Test func labelUpdateRejections() {
        #expect(rejectionCode(of: .updateLabel(label: "nope", name: "X", color: nil), on: board) == .notFound)
        #expect(rejectionCode(of: .updateLabel(label: "bug", name: "ui", color: nil), on: board) == .invalid)
        #expect(rejectionCode(of: .updateLabel(label: "bug", name: "", color: nil), on: board) == .invalid)
        #expect(rejectionCode(of: .updateLabel(label: "bug", name: String(repeating: "n", count: 41), color: nil), on: board)
                == .tooLarge)
    }

    @Test func deleteALabelTakesItOffEveryCard() throws {
        var board = board
        mustApply(.addLabel(card: "c3", label: "bug"), to: &board)
        mustApply(.addLabel(card: "c3", label: "ui"), to: &board)
        let change = try accepted(.deleteLabel(label: "bug"), on: board)
        #expect(change.board.label("bug") == nil)
        #expect(change.board.labels.map(\.id) == ["ui", "docs"])
        #expect(change.board.cards["c1"]?.labels == [])
        #expect(change.board.cards["c3"]?.labels == ["ui"])
        #expect(
            change.activity
                == Activity(
                    seq: 13, at: stamp(13), actor: "alice", kind: "label.delete", label: "bug",
                    changes: ["name": fc(.string("Bug"), .null), "color": fc(.string("#d73a4a"), .null)]))
        #expect(change.inverse == nil)
        #expect(rejectionCode(of: .deleteLabel(label: "bug"), on: change.board) == .notFound)
        #expect(rejectionCode(of: .addLabel(card: "c2", label: "bug"), on: change.board) == .notFound)
    }

    // MARK: milestone.create / update / close / reopen / delete

    @Test func createAMilestone() throws {
        let due = Day(year: 2026, month: 9, day: 30)!
        let change = try accepted(
            .createMilestone(milestone: "m2", title: "v2.0", description: "Next", due: due), on: board, as: "bob")
        #expect(change.board.milestones.last == Milestone(id: "m2", title: "v2.0", description: "Next", due: due))
        #expect(
            change.activity
                == Activity(
                    seq: 11, at: stamp(11), actor: "bob", kind: "milestone.create", milestone: "m2",
                    changes: [
                        "title": fc(.null, .string("v2.0")), "description": fc(.null, .string("Next")),
                        "due": fc(.null, .string("2026-09-30")), "closed": fc(.null, .bool(false)),
                    ]))
        #expect(change.inverse == .deleteMilestone(milestone: "m2"))
        let bare = try accepted(.createMilestone(milestone: "m3", title: "Later", description: nil, due: nil), on: board)
        #expect(bare.board.milestone("m3") == Milestone(id: "m3", title: "Later"))
    }

    @Test func milestoneCreateRejections() {
        #expect(rejectionCode(of: .createMilestone(milestone: "m1", title: "X", description: nil, due: nil), on: board)
                == .duplicateID)
        #expect(rejectionCode(of: .createMilestone(milestone: "m 2", title: "X", description: nil, due: nil), on: board)
                == .invalid)
        #expect(rejectionCode(of: .createMilestone(milestone: "m2", title: "", description: nil, due: nil), on: board)
                == .invalid)
        #expect(
            rejectionCode(
                of: .createMilestone(milestone: "m2", title: String(repeating: "m", count: 101), description: nil, due: nil),
                on: board) == .tooLarge)
        #expect(
            rejectionCode(
                of: .createMilestone(milestone: "m2", title: "X", description: String(repeating: "d", count: 16385), due: nil),
                on: board) == .tooLarge)
        #expect(rejectionCode(of: .createMilestone(milestone: "m2", title: "X", description: nil, due: nil), on: board,
                              as: "vera") == .forbidden)
    }

    @Test func updateAMilestone() throws {
        let change = try accepted(
            .updateMilestone(milestone: "m1", title: "v1.0 GA", description: nil, due: .clear), on: board)
        #expect(change.board.milestone("m1") == Milestone(id: "m1", title: "v1.0 GA", description: "First release"))
        #expect(
            change.activity
                == Activity(
                    seq: 11, at: stamp(11), actor: "alice", kind: "milestone.update", milestone: "m1",
                    changes: ["title": fc(.string("v1.0"), .string("v1.0 GA")), "due": fc(.string("2026-06-01"), .null)]))
        #expect(
            change.inverse == .updateMilestone(milestone: "m1", title: "v1.0", description: nil, due: .set(Fixtures.m1Due)))
        let described = try accepted(
            .updateMilestone(milestone: "m1", title: nil, description: "Scope", due: nil), on: board)
        #expect(described.activity.changes == ["description": fc(.string("First release"), .string("Scope"))])
        #expect(described.inverse == .updateMilestone(milestone: "m1", title: nil, description: "First release", due: nil))
        expectNoop(.updateMilestone(milestone: "m1", title: "v1.0", description: nil, due: .set(Fixtures.m1Due)), on: board)
    }

    @Test func milestoneUpdateRejections() {
        #expect(rejectionCode(of: .updateMilestone(milestone: "m9", title: "X", description: nil, due: nil), on: board)
                == .notFound)
        #expect(rejectionCode(of: .updateMilestone(milestone: "m1", title: " ", description: nil, due: nil), on: board)
                == .invalid)
        #expect(rejectionCode(of: .updateMilestone(milestone: "m1", title: nil, description: "\u{0}", due: nil), on: board)
                == .invalid)
    }

    @Test func closeAndReopenAMilestone() throws {
        let closed = try accepted(.closeMilestone(milestone: "m1"), on: board, as: "ci")
        #expect(closed.board.milestone("m1")?.closed == true)
        #expect(
            closed.activity
                == Activity(
                    seq: 11, at: stamp(11), actor: "ci", kind: "milestone.close", milestone: "m1",
                    changes: ["closed": fc(.bool(false), .bool(true))]))
        #expect(closed.inverse == .reopenMilestone(milestone: "m1"))
        expectNoop(.closeMilestone(milestone: "m1"), on: closed.board)
        expectNoop(.reopenMilestone(milestone: "m1"), on: board)

        let reopened = try accepted(.reopenMilestone(milestone: "m1"), on: closed.board)
        #expect(reopened.board.milestone("m1")?.closed == false)
        #expect(reopened.activity.changes == ["closed": fc(.bool(true), .bool(false))])
        #expect(reopened.inverse == .closeMilestone(milestone: "m1"))
        #expect(rejectionCode(of: .closeMilestone(milestone: "m9"), on: board) == .notFound)
        #expect(rejectionCode(of: .reopenMilestone(milestone: "m9"), on: board) == .notFound)
    }

    @Test func deleteAMilestoneReleasesItsCards() throws {
        let change = try accepted(.deleteMilestone(milestone: "m1"), on: board)
        #expect(change.board.milestones == [])
        #expect(change.board.cards.values.allSatisfy { $0.milestone == nil })
        #expect(change.board.cards["c1"]?.title == "Fix login")
        #expect(
            change.activity
                == Activity(
                    seq: 11, at: stamp(11), actor: "alice", kind: "milestone.delete", milestone: "m1",
                    changes: [
                        "title": fc(.string("v1.0"), .null), "description": fc(.string("First release"), .null),
                        "due": fc(.string("2026-06-01"), .null), "closed": fc(.bool(false), .null),
                    ]))
        #expect(change.inverse == nil)
        #expect(rejectionCode(of: .deleteMilestone(milestone: "m1"), on: change.board) == .notFound)
        #expect(rejectionCode(of: .deleteMilestone(milestone: "m1"), on: board, as: "vera") == .forbidden)
    }
}
