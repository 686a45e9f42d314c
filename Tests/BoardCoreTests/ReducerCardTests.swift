import Foundation
import Testing

@testable import BoardCore

/// Card ops other than moves: add, edit, labels, assignees, close/reopen, archive/restore, purge.
@Suite struct ReducerCardTests {
    let board = Fixtures.board

    // MARK: card.add

    @Test func addCardWithDefaultsGoesToTheBottomOfTheFirstColumn() throws {
        let change = try accepted(.addCard(AddCard(card: "n1", title: "New")), on: board, as: "bob")
        let card = try #require(change.board.cards["n1"])
        // todo holds c1 F, c2 V, c6 a (archived), c3 k: the bottom is right after k.
        #expect(
            card
                == Card(
                    id: "n1", number: 7, column: "todo", rank: Rank("l")!, title: "New", descriptionSeq: 11,
                    createdBy: "bob", createdAt: stamp(11)))
        #expect(change.board.nextCardNumber == 8)
        #expect(change.board.seq == 11)
        #expect(order(change.board, "todo") == ["c1", "c2", "c3", "n1"])
        #expect(
            change.activity
                == Activity(
                    seq: 11, at: stamp(11), actor: "bob", kind: "card.add", card: "n1",
                    changes: [
                        "number": fc(.null, .int(7)), "column": fc(.null, .string("todo")),
                        "rank": fc(.null, .string("l")), "title": fc(.null, .string("New")),
                        "description": fc(.null, .string("")), "labels": fc(.null, .array([])),
                        "assignees": fc(.null, .array([])), "closed": fc(.null, .bool(false)),
                        "archived": fc(.null, .bool(false)),
                    ]))
        #expect(change.inverse == .archiveCard(card: "n1"))
        var expected = board
        expected.cards["n1"] = card
        expected.nextCardNumber = 8
        expected.seq = 11
        #expect(change.board == expected, "nothing else changes")
    }

    @Test func addCardWithEveryField() throws {
        let due = Day(year: 2026, month: 2, day: 3)!
        let add = AddCard(
            card: "n1", column: "doing", placement: .top, title: "Ship it", description: "Line 1\nLine 2", due: due,
            labels: ["ui", "bug", "ui"], assignees: ["bob", "alice", "bob"], milestone: "m1", ref: "GH-9")
        let change = try accepted(.addCard(add), on: board, as: "ci")
        let card = try #require(change.board.cards["n1"])
        #expect(
            card
                == Card(
                    id: "n1", number: 7, column: "doing", rank: Rank("U")!, title: "Ship it",
                    description: "Line 1\nLine 2", descriptionSeq: 11, due: due, labels: ["bug", "ui"],
                    assignees: ["alice", "bob"], milestone: "m1", ref: "GH-9", createdBy: "ci", createdAt: stamp(11)))
        #expect(order(change.board, "doing") == ["n1", "c4"])
        #expect(change.activity.card == "n1")
        #expect(change.activity.changes["due"] == fc(.null, .string("2026-02-03")))
        #expect(change.activity.changes["labels"] == fc(.null, .array([.string("bug"), .string("ui")])))
        #expect(change.activity.changes["assignees"] == fc(.null, .array([.string("alice"), .string("bob")])))
        #expect(change.activity.changes["milestone"] == fc(.null, .string("m1")))
        #expect(change.activity.changes["ref"] == fc(.null, .string("GH-9")))
        #expect(change.activity.changes.count == 12)
    }

    @Test func addCardKeepsTheCreationTimeItBrings() throws {
        let change = try accepted(.addCard(AddCard(card: "n1", title: "Old", createdAt: stamp(3))), on: board)
        let card = try #require(change.board.cards["n1"])
        #expect(card.createdAt == stamp(3))
        #expect(card.updatedAt == stamp(11), "the card changed on this board now")
        let ahead = try accepted(.addCard(AddCard(card: "n1", title: "Ahead", createdAt: stamp(50))), on: board)
        #expect(ahead.board.cards["n1"]?.createdAt == stamp(11), "a clock ahead of the server's is taken as the server's")
        #expect(
            rejectionCode(of: .addCard(AddCard(card: "n1", title: "T", createdAt: Timestamp(milliseconds: -1))), on: board)
                == .invalid, "before the epoch")
    }

    @Test func cardNumbersKeepGrowingAfterAPurge() throws {
        var board = board
        mustApply(.addCard(AddCard(card: "n1", title: "One")), to: &board)
        mustApply(.purgeCard(card: "n1"), to: &board)
        mustApply(.addCard(AddCard(card: "n2", title: "Two")), to: &board)
        #expect(board.cards["n2"]?.number == 8)
        #expect(board.nextCardNumber == 9)
    }

    @Test func addCardTitleLimits() throws {
        let title200 = String(repeating: "é", count: 200)  // 200 characters, 400 bytes
        #expect(try accepted(.addCard(AddCard(card: "n1", title: title200)), on: board).board.cards["n1"]?.title == title200)
        #expect(
            rejectionCode(of: .addCard(AddCard(card: "n1", title: String(repeating: "t", count: 201))), on: board)
                == .tooLarge)
        #expect(rejectionCode(of: .addCard(AddCard(card: "n1", title: "")), on: board) == .invalid)
        #expect(rejectionCode(of: .addCard(AddCard(card: "n1", title: " \t ")), on: board) == .invalid)
        #expect(rejectionCode(of: .addCard(AddCard(card: "n1", title: "two\nlines")), on: board) == .invalid)
        #expect(rejectionCode(of: .addCard(AddCard(card: "n1", title: "bell\u{7}")), on: board) == .invalid)
        #expect(rejectionCode(of: .addCard(AddCard(card: "n1", title: "del\u{7F}")), on: board) == .invalid)
        #expect(rejectionCode(of: .addCard(AddCard(card: "n1", title: "sep\u{2028}")), on: board) == .invalid)
    }

    @Test func addCardDescriptionLimits() throws {
        let max = String(repeating: "d", count: Limits.descriptionMaxBytes)
        #expect(try accepted(.addCard(AddCard(card: "n1", title: "T", description: max)), on: board).board.cards["n1"] != nil)
        #expect(
            rejectionCode(of: .addCard(AddCard(card: "n1", title: "T", description: max + "d")), on: board) == .tooLarge)
        #expect(rejectionCode(of: .addCard(AddCard(card: "n1", title: "T", description: "nul\u{0}")), on: board) == .invalid)
    }

    @Test func addCardRejections() {
        #expect(rejectionCode(of: .addCard(AddCard(card: "c1", title: "T")), on: board) == .duplicateID)
        #expect(rejectionCode(of: .addCard(AddCard(card: "bad id", title: "T")), on: board) == .invalid)
        #expect(rejectionCode(of: .addCard(AddCard(card: "", title: "T")), on: board) == .invalid)
        #expect(
            rejectionCode(of: .addCard(AddCard(card: CardID(String(repeating: "x", count: 65)), title: "T")), on: board)
                == .invalid)
        #expect(rejectionCode(of: .addCard(AddCard(card: "n1", column: "nope", title: "T")), on: board) == .notFound)
        #expect(rejectionCode(of: .addCard(AddCard(card: "n1", title: "T", labels: ["nope"])), on: board) == .notFound)
        #expect(rejectionCode(of: .addCard(AddCard(card: "n1", title: "T", assignees: ["zed"])), on: board) == .notFound)
        #expect(rejectionCode(of: .addCard(AddCard(card: "n1", title: "T", milestone: "m9")), on: board) == .notFound)
        #expect(
            rejectionCode(of: .addCard(AddCard(card: "n1", placement: Placement(after: "c4"), title: "T")), on: board)
                == .notFound, "after a card of another column")
        #expect(rejectionCode(of: .addCard(AddCard(card: "n1", title: "T", ref: "has space")), on: board) == .invalid)
        #expect(
            rejectionCode(of: .addCard(AddCard(card: "n1", title: "T", ref: String(repeating: "r", count: 65))), on: board)
                == .tooLarge)
        #expect(rejectionCode(of: .addCard(AddCard(card: "n1", title: "T")), on: board, as: "vera") == .forbidden)
    }

    @Test func addCardWithATakenRefIsADuplicateRef() throws {
        let r = try #require(rejection(of: .addCard(AddCard(card: "n1", title: "T", ref: "JIRA-1")), on: board))
        #expect(r.code == .duplicateRef)
        #expect(r.current == .object(["card": .string("c1"), "number": .int(1)]))
    }

    @Test func addCardWithTooManyLabels() {
        let board = Fixtures.board(extraLabels: 21)
        let labels = (1...21).map { LabelID("x\($0)") }
        #expect(rejectionCode(of: .addCard(AddCard(card: "n1", title: "T", labels: labels)), on: board) == .tooLarge)
        #expect(throws: Never.self) {
            try accepted(.addCard(AddCard(card: "n1", title: "T", labels: Array(labels.prefix(20)))), on: board)
        }
    }

    @Test func addCardWithTooManyAssignees() {
        var board = board
        for i in 1...21 { board.members[UserID("u\(i)")] = Member(id: UserID("u\(i)"), role: .editor) }
        let users = (1...21).map { UserID("u\($0)") }
        #expect(rejectionCode(of: .addCard(AddCard(card: "n1", title: "T", assignees: users)), on: board) == .tooLarge)
    }

    @Test func addCardIntoAColumnAtItsWIPLimit() throws {
        var hard = board
        mustApply(.setWIPLimit(column: "doing", limit: WIPLimit(limit: 1, hard: true)), to: &hard)
        let r = try #require(rejection(of: .addCard(AddCard(card: "n1", column: "doing", title: "T")), on: hard))
        #expect(r.code == .wipLimit)
        #expect(r.message.contains("DOING"))
        // A limit made lower than what the column holds: the refusal says it is over the limit, not at it.
        let held = hard.cards(in: "doing").count
        if held > 1 {
            #expect(r.message == "DOING holds \(held) cards, over its WIP limit of 1", "\(r.message)")
        } else {
            #expect(r.message == "DOING is at its WIP limit of 1", "\(r.message)")
        }
        var over = board
        mustApply(.addCard(AddCard(card: "x1", column: "doing", title: "A")), to: &over)
        mustApply(.addCard(AddCard(card: "x2", column: "doing", title: "B")), to: &over)
        mustApply(.setWIPLimit(column: "doing", limit: WIPLimit(limit: 1, hard: true)), to: &over)
        let count = over.cards(in: "doing").count
        let overRefusal = try #require(rejection(of: .addCard(AddCard(card: "n2", column: "doing", title: "T")), on: over))
        #expect(overRefusal.message == "DOING holds \(count) cards, over its WIP limit of 1")

        var soft = board
        mustApply(.setWIPLimit(column: "doing", limit: WIPLimit(limit: 1, hard: false)), to: &soft)
        let change = try accepted(.addCard(AddCard(card: "n1", column: "doing", title: "T")), on: soft)
        #expect(change.activity.warning == "wip_exceeded")
        #expect(change.board.count(in: "doing") == 2)

        var roomy = board
        mustApply(.setWIPLimit(column: "doing", limit: WIPLimit(limit: 2, hard: true)), to: &roomy)
        let fits = try accepted(.addCard(AddCard(card: "n1", column: "doing", title: "T")), on: roomy)
        #expect(fits.activity.warning == nil)
    }

    @Test func archivedCardsDoNotCountTowardsAWIPLimit() throws {
        var board = board
        mustApply(.setWIPLimit(column: "doing", limit: WIPLimit(limit: 1, hard: true)), to: &board)
        mustApply(.archiveCard(card: "c4"), to: &board)
        let change = try accepted(.addCard(AddCard(card: "n1", column: "doing", title: "T")), on: board)
        #expect(change.activity.warning == nil)
    }

    // MARK: card.edit

    @Test func editCardSetsEveryPlainField() throws {
        let due = Day(year: 2026, month: 3, day: 4)!
        let edit = EditCard(
            card: "c2", title: "Design the settings", description: "Dark mode", baseSeq: 10, due: .set(due),
            milestone: .set("m1"), ref: .set("GH-2"))
        let change = try accepted(.editCard(edit), on: board, as: "bob")
        let card = try #require(change.board.cards["c2"])
        var expected = try #require(board.cards["c2"])
        expected.title = "Design the settings"
        expected.description = "Dark mode"
        expected.descriptionSeq = 11
        expected.due = due
        expected.milestone = "m1"
        expected.ref = "GH-2"
        expected.updatedBy = "bob"
        expected.updatedAt = stamp(11)
        #expect(card == expected)
        #expect(
            change.activity
                == Activity(
                    seq: 11, at: stamp(11), actor: "bob", kind: "card.edit", card: "c2",
                    changes: [
                        "title": fc(.string("Design settings"), .string("Design the settings")),
                        "description": fc(.string(""), .string("Dark mode")),
                        "due": fc(.null, .string("2026-03-04")), "milestone": fc(.null, .string("m1")),
                        "ref": fc(.null, .string("GH-2")),
                    ]))
        #expect(
            change.inverse
                == .editCard(
                    EditCard(
                        card: "c2", title: "Design settings", description: "", due: .clear, milestone: .clear,
                        ref: .clear)))
    }

    @Test func editCardClearsOptionalFields() throws {
        let change = try accepted(.editCard(EditCard(card: "c1", milestone: .clear, ref: .clear)), on: board)
        #expect(change.board.cards["c1"]?.milestone == nil)
        #expect(change.board.cards["c1"]?.ref == nil)
        #expect(change.activity.changes == ["milestone": fc(.string("m1"), .null), "ref": fc(.string("JIRA-1"), .null)])
        #expect(change.inverse == .editCard(EditCard(card: "c1", milestone: .set("m1"), ref: .set("JIRA-1"))))
        #expect(change.board.card(ref: "JIRA-1") == nil)
    }

    @Test func editCardOnlyListsTheFieldsThatChanged() throws {
        let change = try accepted(.editCard(EditCard(card: "c1", title: "Fix login", description: "Steps")), on: board)
        #expect(change.activity.changes == ["description": fc(.string(""), .string("Steps"))])
        #expect(change.inverse == .editCard(EditCard(card: "c1", description: "")))
        #expect(change.board.cards["c1"]?.descriptionSeq == 11)
        #expect(change.board.cards["c1"]?.updatedAt == stamp(11))
    }

    @Test func editCardWithNothingNewIsANoop() {
        expectNoop(.editCard(EditCard(card: "c2", title: "Design settings")), on: board)
        expectNoop(.editCard(EditCard(card: "c1", ref: .set("JIRA-1"))), on: board)
        expectNoop(.editCard(EditCard(card: "c2", due: .clear, milestone: .clear, ref: .clear)), on: board)
        expectNoop(.editCard(EditCard(card: "c2")), on: board)
    }

    @Test func describingAStaleDescriptionIsAConflictWithTheCurrentValue() throws {
        var board = board
        mustApply(.editCard(EditCard(card: "c3", description: "Alice's outline", baseSeq: 10)), to: &board)
        #expect(board.cards["c3"]?.descriptionSeq == 11)
        // Bob edits from what he saw at seq 10.
        let r = try #require(
            rejection(of: .editCard(EditCard(card: "c3", description: "Bob's outline", baseSeq: 10)), on: board, as: "bob"))
        #expect(r.code == .conflict)
        #expect(r.current == .object(["description": .string("Alice's outline"), "seq": .int(11)]))
        #expect(r.message.hasSuffix("was changed by another edit since this one began"), "\(r.message)")
        // Based on seq 11 it goes through.
        let change = try accepted(
            .editCard(EditCard(card: "c3", description: "Bob's outline", baseSeq: 11)), on: board, as: "bob")
        #expect(change.board.cards["c3"]?.description == "Bob's outline")
        // Without a base the last writer wins.
        #expect(throws: Never.self) {
            try accepted(.editCard(EditCard(card: "c3", description: "Bob's", baseSeq: nil)), on: board, as: "bob")
        }
    }

    /// A title edit may name the title it replaces (`base_title`): renamed since (say while the edit waited
    /// offline), it is a conflict naming the title now, not a rename of someone else's title unseen.
    @Test func aTitleEditBasedOnAnOldTitleIsAConflict() throws {
        var board = board
        mustApply(.editCard(EditCard(card: "c2", title: "Design settings (dark)")), to: &board)
        let r = try #require(
            rejection(of: .editCard(EditCard(card: "c2", title: "Settings page", baseTitle: "Design settings")), on: board, as: "bob"))
        #expect(r.code == .conflict)
        #expect(r.current == .object(["title": .string("Design settings (dark)")]))
        #expect(r.message == #"#2 was renamed to "Design settings (dark)" since this edit began"#, "\(r.message)")
        // Based on the title now, or giving the title it already has, or with no base: it goes through.
        _ = try accepted(.editCard(EditCard(card: "c2", title: "Settings page", baseTitle: "Design settings (dark)")), on: board, as: "bob")
        expectNoop(.editCard(EditCard(card: "c2", title: "Design settings (dark)", baseTitle: "Design settings")), on: board)
        _ = try accepted(.editCard(EditCard(card: "c2", title: "Settings page")), on: board, as: "bob")
        // The field goes over the wire and back.
        let op = Op.editCard(EditCard(card: "c2", title: "Settings page", baseTitle: "Design settings"))
        let json = try JSONEncoder().encode(op)
        #expect(String(decoding: json, as: UTF8.self).contains(#""base_title":"Design settings""#))
        #expect(try JSONDecoder().decode(Op.self, from: json) == op)
    }

    @Test func aStaleBaseDoesNotMatterForOtherFieldsOrTheSameText() throws {
        var board = board
        mustApply(.editCard(EditCard(card: "c3", description: "New")), to: &board)
        let title = try accepted(.editCard(EditCard(card: "c3", title: "Docs", baseSeq: 1)), on: board, as: "bob")
        #expect(title.board.cards["c3"]?.title == "Docs")
        expectNoop(.editCard(EditCard(card: "c3", description: "New", baseSeq: 1)), on: board, as: "bob")
    }

    @Test func editCardRejections() {
        #expect(rejectionCode(of: .editCard(EditCard(card: "zz", title: "T")), on: board) == .notFound)
        #expect(rejectionCode(of: .editCard(EditCard(card: "c2", title: "")), on: board) == .invalid)
        #expect(rejectionCode(of: .editCard(EditCard(card: "c2", title: "a\rb")), on: board) == .invalid)
        #expect(rejectionCode(of: .editCard(EditCard(card: "c2", title: String(repeating: "t", count: 201))), on: board)
                == .tooLarge)
        #expect(
            rejectionCode(
                of: .editCard(EditCard(card: "c2", description: String(repeating: "d", count: 16 * 1024 + 1))), on: board)
                == .tooLarge)
        #expect(rejectionCode(of: .editCard(EditCard(card: "c2", milestone: .set("m9"))), on: board) == .notFound)
        #expect(rejectionCode(of: .editCard(EditCard(card: "c2", ref: .set("a b"))), on: board) == .invalid)
        #expect(rejectionCode(of: .editCard(EditCard(card: "c2", title: "T")), on: board, as: "vera") == .forbidden)
    }

    @Test func editCardToATakenRefIsADuplicateRef() throws {
        let r = try #require(rejection(of: .editCard(EditCard(card: "c2", ref: .set("JIRA-1"))), on: board))
        #expect(r.code == .duplicateRef)
        #expect(r.current == .object(["card": .string("c1"), "number": .int(1)]))
        #expect(r.message.contains("#1"))
    }

    @Test func anArchivedCardStillHoldsItsRef() {
        var board = board
        mustApply(.archiveCard(card: "c1"), to: &board)
        #expect(rejectionCode(of: .addCard(AddCard(card: "n1", title: "T", ref: "JIRA-1")), on: board) == .duplicateRef)
        mustApply(.purgeCard(card: "c1"), to: &board)
        mustApply(.addCard(AddCard(card: "n1", title: "T", ref: "JIRA-1")), to: &board)
        #expect(board.card(ref: "JIRA-1")?.id == "n1")
    }

    // MARK: card.label / card.unlabel

    @Test func addLabel() throws {
        let change = try accepted(.addLabel(card: "c1", label: "ui"), on: board, as: "ci")
        #expect(change.board.cards["c1"]?.labels == ["bug", "ui"])
        #expect(change.board.cards["c1"]?.updatedBy == "ci")
        #expect(
            change.activity
                == Activity(
                    seq: 11, at: stamp(11), actor: "ci", kind: "card.label", card: "c1",
                    changes: ["labels": fc(.array([.string("bug")]), .array([.string("bug"), .string("ui")]))]))
        #expect(change.inverse == .removeLabel(card: "c1", label: "ui"))
    }

    @Test func labelsStaySortedById() throws {
        var board = board
        mustApply(.addLabel(card: "c2", label: "ui"), to: &board)
        mustApply(.addLabel(card: "c2", label: "docs"), to: &board)
        mustApply(.addLabel(card: "c2", label: "bug"), to: &board)
        #expect(board.cards["c2"]?.labels == ["bug", "docs", "ui"])
    }

    @Test func addingALabelTheCardHasIsANoop() {
        expectNoop(.addLabel(card: "c1", label: "bug"), on: board)
    }

    @Test func aCardCarriesAtMostTwentyLabels() {
        var board = Fixtures.board(extraLabels: 21)
        for i in 1...19 { mustApply(.addLabel(card: "c1", label: LabelID("x\(i)")), to: &board) }
        #expect(board.cards["c1"]?.labels.count == 20)
        #expect(rejectionCode(of: .addLabel(card: "c1", label: "x20"), on: board) == .tooLarge)
        expectNoop(.addLabel(card: "c1", label: "x19"), on: board)
    }

    @Test func removeLabel() throws {
        let change = try accepted(.removeLabel(card: "c1", label: "bug"), on: board)
        #expect(change.board.cards["c1"]?.labels == [])
        #expect(change.activity.changes == ["labels": fc(.array([.string("bug")]), .array([]))])
        #expect(change.activity.kind == "card.unlabel")
        #expect(change.inverse == .addLabel(card: "c1", label: "bug"))
        expectNoop(.removeLabel(card: "c2", label: "bug"), on: board)
    }

    @Test func labelRejections() {
        #expect(rejectionCode(of: .addLabel(card: "c1", label: "nope"), on: board) == .notFound)
        #expect(rejectionCode(of: .addLabel(card: "zz", label: "ui"), on: board) == .notFound)
        #expect(rejectionCode(of: .removeLabel(card: "c1", label: "nope"), on: board) == .notFound)
        #expect(rejectionCode(of: .removeLabel(card: "zz", label: "bug"), on: board) == .notFound)
        #expect(rejectionCode(of: .addLabel(card: "c1", label: "ui"), on: board, as: "vera") == .forbidden)
    }

    // MARK: card.assign / card.unassign

    @Test func assign() throws {
        let change = try accepted(.assign(card: "c2", user: "alice"), on: board)
        #expect(change.board.cards["c2"]?.assignees == ["alice", "bob"])
        #expect(
            change.activity
                == Activity(
                    seq: 11, at: stamp(11), actor: "alice", kind: "card.assign", card: "c2",
                    changes: ["assignees": fc(.array([.string("bob")]), .array([.string("alice"), .string("bob")]))]))
        #expect(change.inverse == .unassign(card: "c2", user: "alice"))
        expectNoop(.assign(card: "c2", user: "bob"), on: board)
    }

    @Test func unassign() throws {
        let change = try accepted(.unassign(card: "c1", user: "alice"), on: board, as: "bob")
        #expect(change.board.cards["c1"]?.assignees == [])
        #expect(change.activity.changes == ["assignees": fc(.array([.string("alice")]), .array([]))])
        #expect(change.activity.kind == "card.unassign")
        #expect(change.inverse == .assign(card: "c1", user: "alice"))
        expectNoop(.unassign(card: "c1", user: "bob"), on: board)
    }

    @Test func assignRejections() {
        #expect(rejectionCode(of: .assign(card: "c1", user: "zed"), on: board) == .notFound)
        #expect(rejectionCode(of: .assign(card: "zz", user: "bob"), on: board) == .notFound)
        #expect(rejectionCode(of: .unassign(card: "zz", user: "bob"), on: board) == .notFound)
        #expect(rejectionCode(of: .assign(card: "c1", user: "bob"), on: board, as: "vera") == .forbidden)
    }

    @Test func aCardHasAtMostTwentyAssignees() {
        var board = board
        for i in 1...20 { board.members[UserID("u\(i)")] = Member(id: UserID("u\(i)"), role: .editor) }
        for i in 1...19 { mustApply(.assign(card: "c1", user: UserID("u\(i)")), to: &board) }
        #expect(board.cards["c1"]?.assignees.count == 20)
        #expect(rejectionCode(of: .assign(card: "c1", user: "u20"), on: board) == .tooLarge)
    }

    // MARK: card.close / card.reopen

    @Test func closeAndReopen() throws {
        let closed = try accepted(.closeCard(card: "c2"), on: board)
        #expect(closed.board.cards["c2"]?.closed == true)
        #expect(closed.board.cards["c2"]?.column == "todo", "closing does not move the card")
        #expect(
            closed.activity
                == Activity(
                    seq: 11, at: stamp(11), actor: "alice", kind: "card.close", card: "c2",
                    changes: ["closed": fc(.bool(false), .bool(true))]))
        #expect(closed.inverse == .reopenCard(card: "c2"))

        let reopened = try accepted(.reopenCard(card: "c5"), on: board, as: "ci")
        #expect(reopened.board.cards["c5"]?.closed == false)
        #expect(reopened.activity.changes == ["closed": fc(.bool(true), .bool(false))])
        #expect(reopened.activity.kind == "card.reopen")
        #expect(reopened.inverse == .closeCard(card: "c5"))
    }

    @Test func closingAClosedCardIsANoop() {
        expectNoop(.closeCard(card: "c5"), on: board)
        expectNoop(.reopenCard(card: "c2"), on: board)
    }

    @Test func closeRejections() {
        #expect(rejectionCode(of: .closeCard(card: "zz"), on: board) == .notFound)
        #expect(rejectionCode(of: .reopenCard(card: "zz"), on: board) == .notFound)
        #expect(rejectionCode(of: .closeCard(card: "c2"), on: board, as: "vera") == .forbidden)
    }

    // MARK: card.archive / card.restore

    @Test func archiveAndRestore() throws {
        let archived = try accepted(.archiveCard(card: "c2"), on: board, as: "bob")
        #expect(archived.board.cards["c2"]?.archived == true)
        #expect(archived.board.cards["c2"]?.rank == Rank("V"), "an archived card keeps its place")
        #expect(order(archived.board, "todo") == ["c1", "c3"])
        #expect(archived.board.count(in: "todo") == 2)
        #expect(
            archived.activity
                == Activity(
                    seq: 11, at: stamp(11), actor: "bob", kind: "card.archive", card: "c2",
                    changes: ["archived": fc(.bool(false), .bool(true))]))
        #expect(archived.inverse == .restoreCard(card: "c2"))

        let restored = try accepted(.restoreCard(card: "c6"), on: board)
        #expect(restored.board.cards["c6"]?.archived == false)
        #expect(order(restored.board, "todo") == ["c1", "c2", "c6", "c3"])
        #expect(restored.activity.changes == ["archived": fc(.bool(true), .bool(false))])
        #expect(restored.inverse == .archiveCard(card: "c6"))
    }

    @Test func archivingAnArchivedCardIsANoop() {
        expectNoop(.archiveCard(card: "c6"), on: board)
        expectNoop(.restoreCard(card: "c1"), on: board)
    }

    @Test func restoringIntoAFullColumn() throws {
        var hard = board
        mustApply(.setWIPLimit(column: "todo", limit: WIPLimit(limit: 3, hard: true)), to: &hard)
        #expect(rejectionCode(of: .restoreCard(card: "c6"), on: hard) == .wipLimit)
        var soft = board
        mustApply(.setWIPLimit(column: "todo", limit: WIPLimit(limit: 3, hard: false)), to: &soft)
        #expect(try accepted(.restoreCard(card: "c6"), on: soft).activity.warning == "wip_exceeded")
    }

    @Test func archiveRejections() {
        #expect(rejectionCode(of: .archiveCard(card: "zz"), on: board) == .notFound)
        #expect(rejectionCode(of: .restoreCard(card: "zz"), on: board) == .notFound)
        #expect(rejectionCode(of: .archiveCard(card: "c1"), on: board, as: "vera") == .forbidden)
    }

    // MARK: card.purge

    @Test func purgeDeletesTheCardForGood() throws {
        let change = try accepted(.purgeCard(card: "c2"), on: board)
        #expect(change.board.cards["c2"] == nil)
        #expect(change.board.purged == ["c2"])
        #expect(change.board.seq == 11)
        #expect(
            change.activity
                == Activity(
                    seq: 11, at: stamp(11), actor: "alice", kind: "card.purge", card: "c2",
                    changes: [
                        "number": fc(.int(2), .null), "column": fc(.string("todo"), .null),
                        "rank": fc(.string("V"), .null), "title": fc(.string("Design settings"), .null),
                        "description": fc(.string(""), .null), "labels": fc(.array([]), .null),
                        "assignees": fc(.array([.string("bob")]), .null), "closed": fc(.bool(false), .null),
                        "archived": fc(.bool(false), .null),
                    ]))
        #expect(change.inverse == nil)
    }

    @Test func opsOnAPurgedCardAreGone() throws {
        var board = board
        mustApply(.purgeCard(card: "c3"), to: &board)
        let ops: [Op] = [
            .editCard(EditCard(card: "c3", title: "T")), .moveCard(card: "c3", column: "doing", placement: .bottom),
            .addLabel(card: "c3", label: "ui"), .removeLabel(card: "c3", label: "bug"),
            .assign(card: "c3", user: "bob"), .unassign(card: "c3", user: "bob"), .closeCard(card: "c3"),
            .reopenCard(card: "c3"), .archiveCard(card: "c3"), .restoreCard(card: "c3"), .purgeCard(card: "c3"),
            .addChecklistItem(card: "c3", item: "i9", text: "x", done: false, index: nil),
            .editChecklistItem(card: "c3", item: "i1", text: "x", done: nil),
            .removeChecklistItem(card: "c3", item: "i1"), .addComment(card: "c3", comment: "k9", text: "x"),
            .editComment(card: "c3", comment: "k1", text: "x"), .deleteComment(card: "c3", comment: "k1"),
        ]
        for op in ops {
            #expect(rejectionCode(of: op, on: board) == .gone, "\(op.kind)")
        }
        #expect(rejectionCode(of: .addCard(AddCard(card: "c3", title: "Again")), on: board) == .duplicateID)
        #expect(
            rejectionCode(of: .moveCard(card: "c2", column: "todo", placement: Placement(after: "c3")), on: board)
                == .notFound, "a purged card is no longer a neighbour")
    }

    @Test func onlyOwnersPurge() {
        #expect(rejectionCode(of: .purgeCard(card: "c2"), on: board, as: "bob") == .forbidden)
        #expect(rejectionCode(of: .purgeCard(card: "c2"), on: board, as: "ci") == .forbidden)
        #expect(rejectionCode(of: .purgeCard(card: "c2"), on: board, as: "vera") == .forbidden)
        #expect(rejectionCode(of: .purgeCard(card: "zz"), on: board) == .notFound)
    }
}
