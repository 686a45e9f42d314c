import Testing

@testable import BoardCore

/// Who is told what about a change (`InboxRules`), on the fixture board: alice owns it, bob edits, vera views, ci
/// is a bot; c1 "Fix login" (alice's, assigned to alice), c2 "Design settings" (bob's, assigned to bob).
@Suite struct InboxRulesTests {
    /// The entries of `op` applied by `actor` on `board`.
    static func entries(_ op: Op, as actor: UserID, on board: inout Board) -> [InboxEntry] {
        guard let change = mustApply(op, to: &board, as: actor) else { return [] }
        return InboxRules.entries(for: change.activity, board: board)
    }

    static func summary(_ entries: [InboxEntry]) -> [String] {
        entries.map { "\($0.user) \($0.kind.rawValue) \($0.card?.rawValue ?? "-")" }.sorted()
    }

    /// What stopped being true is not mailed: a mail went to bob saying he was assigned a card he had been taken
    /// off in the same second, and one naming a due date moved since.
    @Test func entriesThatStoppedBeingTrueAreStale() {
        var board = Fixtures.board
        let at = Timestamp(milliseconds: 1_796_083_200_000)  // 2026-12-01
        func entry(_ kind: InboxEntry.Kind, _ user: UserID, _ card: CardID, _ text: String) -> InboxEntry {
            InboxEntry(user: user, board: "main", seq: 1, card: card, kind: kind, actor: "alice", at: at, text: text)
        }
        let assigned = entry(.assigned, "bob", "c2", "assigned you to #2 \"Design settings\"")
        let mention = entry(.mention, "bob", "c2", "#2 \"Design settings\": @bob")
        #expect(!InboxRules.isStale(assigned, on: board, today: at.day))
        mustApply(.unassign(card: "c2", user: "bob"), to: &board, as: "alice")
        #expect(InboxRules.isStale(assigned, on: board, today: at.day), "bob is no longer assigned")
        #expect(!InboxRules.isStale(mention, on: board, today: at.day), "a mention stays true")

        let due = Day(year: 2026, month: 12, day: 4)!
        mustApply(.editCard(EditCard(card: "c1", due: .set(due))), to: &board, as: "alice")
        let soon = entry(.dueSoon, "alice", "c1", "#1 \"Fix login\" is due 2026-12-04")
        #expect(!InboxRules.isStale(soon, on: board, today: at.day))
        mustApply(.editCard(EditCard(card: "c1", due: .set(Day(year: 2026, month: 12, day: 3)!))), to: &board, as: "alice")
        #expect(InboxRules.isStale(soon, on: board, today: at.day), "the date moved")
        let today = entry(.dueSoon, "alice", "c1", "#1 \"Fix login\" is due today")
        mustApply(.editCard(EditCard(card: "c1", due: .set(at.day))), to: &board, as: "alice")
        #expect(!InboxRules.isStale(today, on: board, today: at.day), "due today, said as today")
        mustApply(.closeCard(card: "c1"), to: &board, as: "alice")
        #expect(InboxRules.isStale(today, on: board, today: at.day), "done: nothing to remind of")
    }

    @Test func aMentionInACommentTellsTheMentionedAndTheWatchersOnce() {
        var board = Fixtures.board
        let found = Self.entries(
            .addComment(card: "c2", comment: "k9", text: "@alice and @Vera, see this (not @nobody, not a@b.c)."), as: "ci",
            on: &board)
        // alice and vera are mentioned; bob watches c2 (created and assigned) and gets the comment.
        #expect(Self.summary(found) == ["alice mention c2", "bob comment c2", "vera mention c2"])
        let alice = found.first { $0.user == "alice" }!
        #expect(alice.text == "#2 \"Design settings\": @alice and @Vera, see this (not @nobody, not a@b.c).")
        #expect(alice.actor == "ci" && alice.board == "main" && alice.seq == board.seq)
    }

    @Test func whoPressedWatchHearsOfCommentsAndMoves() {
        var board = Fixtures.board
        #expect(rejectionCode(of: .watchCard(card: "c3"), on: board, as: "vera") == .forbidden, "viewers do not change the board")
        mustApply(.watchCard(card: "c3"), to: &board, as: "ci")
        let found = Self.entries(.moveCard(card: "c3", column: "doing", placement: .bottom), as: "bob", on: &board)
        #expect(Self.summary(found) == ["alice moved c3", "ci moved c3"])
        mustApply(.unwatchCard(card: "c3"), to: &board, as: "ci")
        #expect(Self.summary(Self.entries(.addComment(card: "c3", comment: "k7", text: "ok"), as: "bob", on: &board)) == ["alice comment c3"])
    }

    @Test func theActorIsNeverToldOfTheirOwnChange() {
        var board = Fixtures.board
        #expect(Self.entries(.addComment(card: "c1", comment: "k9", text: "note to @alice"), as: "alice", on: &board).isEmpty)
    }

    @Test func chatMentionsHaveNoCard() {
        var board = Fixtures.board
        #expect(Self.summary(Self.entries(.chat(text: "@bob lunch?"), as: "alice", on: &board)) == ["bob mention -"])
    }

    @Test func aDescriptionEditTellsOnlyTheNewlyMentioned() {
        var board = Fixtures.board
        mustApply(.editCard(EditCard(card: "c3", description: "ask @bob")), to: &board)
        let found = Self.entries(.editCard(EditCard(card: "c3", description: "ask @bob and @vera")), as: "alice", on: &board)
        #expect(Self.summary(found) == ["vera mention c3"])
        #expect(found[0].text == "#3 \"Write docs\" (description)")
    }

    @Test func anAssignmentTellsTheAssigneeAndAMoveTellsTheWatchers() {
        var board = Fixtures.board
        let assigned = Self.entries(.assign(card: "c1", user: "bob"), as: "alice", on: &board)
        #expect(Self.summary(assigned) == ["bob assigned c1"])
        #expect(assigned[0].text == "assigned you to #1 \"Fix login\"")
        let moved = Self.entries(.moveCard(card: "c1", column: "doing", placement: .bottom), as: "ci", on: &board)
        #expect(Self.summary(moved) == ["alice moved c1", "bob moved c1"])
        #expect(moved[0].text == #"moved #1 "Fix login" TODO → DOING"#)
        // A reorder within the column is no move.
        #expect(Self.entries(.moveCard(card: "c1", column: "doing", placement: .top), as: "ci", on: &board).isEmpty)
    }

    /// A recurring card's next occurrence, added by the server, tells nobody: its assignees and the people its
    /// description mentions were told of the first (a daily card would otherwise tell them, and mail them, daily).
    /// The same card added by a person tells them.
    @Test func aRecurringCardsNextOccurrenceTellsNobody() {
        var add = AddCard(card: "r1", column: "todo", title: "Daily standup", ref: RecurrenceRules.refPrefix + "abc:2026-03-06")
        add.description = "daily @bob"
        add.assignees = ["vera", "bob"]
        // The server applies it as itself.
        let board = Fixtures.board
        let context = ApplyContext(actor: ReminderRules.actor, role: .owner, now: Timestamp(milliseconds: 0), seq: board.seq + 1)
        guard case .success(let change) = board.applying(.addCard(add), context: context) else {
            Issue.record("the server's card.add was refused")
            return
        }
        #expect(InboxRules.entries(for: change.activity, board: change.board).isEmpty)
        // The same card added by a person (even with such a ref) tells them.
        add.card = "k1"
        add.ref = RecurrenceRules.refPrefix + "abc:2026-03-07"
        var other = Fixtures.board
        #expect(Self.summary(Self.entries(.addCard(add), as: "alice", on: &other)) == ["bob mention k1", "vera assigned k1"])
    }

    @Test func finishingTheLastBlockerTellsTheWatchersOfTheCardItBlocked() {
        var board = Fixtures.board
        mustApply(.blockCard(card: "c2", by: "c1"), to: &board)
        mustApply(.blockCard(card: "c2", by: "c3"), to: &board)
        // c3 is still pending: nothing yet.
        #expect(!Self.entries(.closeCard(card: "c1"), as: "alice", on: &board).contains { $0.kind == .unblocked })
        let unblocked = Self.entries(.moveCard(card: "c3", column: "done", placement: .bottom), as: "alice", on: &board)
            .filter { $0.kind == .unblocked }
        #expect(Self.summary(unblocked) == ["bob unblocked c2"])
        #expect(unblocked[0].text == "#2 \"Design settings\" is no longer blocked: #3 \"Write docs\" is done")
    }

    /// Archived or deleted unblocks too, and says so: not "is done", which would have someone start work whose
    /// prerequisite was dropped.
    @Test func archivingOrPurgingTheBlockerUnblocksToo() {
        for (op, how): (Op, String) in [(.archiveCard(card: "c1"), "was archived"), (.purgeCard(card: "c1"), "was deleted")] {
            var board = Fixtures.board
            mustApply(.blockCard(card: "c2", by: "c1"), to: &board)
            let found = Self.entries(op, as: "alice", on: &board).filter { $0.kind == .unblocked }
            #expect(Self.summary(found) == ["bob unblocked c2"], "\(op.kind)")
            #expect(found.first?.text.hasSuffix("\"Fix login\" \(how)") == true, "\(found.first?.text ?? "")")
        }
    }

    @Test func keysAreUniquePerUserChangeKindAndCard() {
        let a = InboxEntry(user: "bob", board: "main", seq: 7, card: "c1", kind: .moved, actor: "alice", at: Timestamp(milliseconds: 0), text: "x")
        let b = InboxEntry(user: "bob", board: "main", seq: 7, card: "c1", kind: .moved, actor: "ci", at: Timestamp(milliseconds: 5), text: "other words")
        #expect(a.key == b.key)
        let c = InboxEntry(user: "bob", board: "main", seq: 7, card: "c1", kind: .comment, actor: "alice", at: Timestamp(milliseconds: 0), text: "x")
        #expect(a.key != c.key)
    }

    @Test func mentionsIgnoreAddressesAndNonMembers() {
        let board = Fixtures.board
        #expect(InboxRules.mentions(in: "mail alice@example.com or @bob.", board: board) == ["bob"])
        #expect(InboxRules.mentions(in: "@ALICE @alice @zed", board: board) == ["alice"])
    }
}

/// Reminders (`ReminderRules`): due soon from the start of the day before (24 h lead, or the board's own), overdue
/// once the day has passed, each once per card, due day and threshold.
@Suite struct ReminderRulesTests {
    static let day = Day(year: 2026, month: 3, day: 10)!
    static func at(_ day: Day, hour: Int64) -> Timestamp {
        Timestamp(milliseconds: Int64(day.daysSinceEpoch) * 86_400_000 + hour * 3_600_000)
    }

    static var board: Board {
        var board = Fixtures.board
        mustApply(.editCard(EditCard(card: "c2", due: .set(day))), to: &board)
        return board
    }

    @Test func dueSoonThenOverdueForTheWatchers() {
        let board = Self.board
        #expect(ReminderRules.entries(board: board, now: Self.at(Self.day.adding(days: -2), hour: 23)).isEmpty)
        let soon = ReminderRules.entries(board: board, now: Self.at(Self.day.adding(days: -1), hour: 0))
        #expect(soon.map { "\($0.user) \($0.kind)" } == ["bob due_soon"])
        #expect(soon[0].text == "#2 \"Design settings\" is due 2026-03-10" && soon[0].actor == "corkd")
        #expect(ReminderRules.entries(board: board, now: Self.at(Self.day, hour: 9))[0].text == "#2 \"Design settings\" is due today")
        let late = ReminderRules.entries(board: board, now: Self.at(Self.day.adding(days: 1), hour: 0))
        #expect(late.map { "\($0.user) \($0.kind)" } == ["bob overdue"])
        #expect(late[0].text == "#2 \"Design settings\" is overdue (due 2026-03-10)")
    }

    @Test func aBoardsOwnLeadTimeWinsOverTheServersDefault() {
        var board = Self.board
        mustApply(.setRemindHours(hours: 72), to: &board)
        let threeDaysAhead = Self.at(Self.day.adding(days: -3), hour: 0)
        #expect(ReminderRules.entries(board: board, now: threeDaysAhead).map(\.kind) == [.dueSoon])
        #expect(ReminderRules.entries(board: Self.board, now: threeDaysAhead).isEmpty, "24 h by default")
        mustApply(.setRemindHours(hours: 0), to: &board)
        #expect(ReminderRules.entries(board: board, now: Self.at(Self.day.adding(days: -1), hour: 12)).isEmpty)
        #expect(ReminderRules.entries(board: board, now: Self.at(Self.day, hour: 0)).map(\.kind) == [.dueSoon], "0: on the day")
        #expect(
            ReminderRules.entries(board: Self.board, now: threeDaysAhead, defaultLeadMs: 96 * 3_600_000).map(\.kind) == [.dueSoon],
            "the server's default for a board without its own")
    }

    @Test func oneKeyPerCardDueDayAndThreshold() {
        let board = Self.board
        let a = ReminderRules.entries(board: board, now: Self.at(Self.day.adding(days: -1), hour: 1))
        let b = ReminderRules.entries(board: board, now: Self.at(Self.day, hour: 20))
        #expect(a.map(\.key) == b.map(\.key), "a scan later in the same threshold tells nobody again")
        var moved = board
        mustApply(.editCard(EditCard(card: "c2", due: .set(Self.day.adding(days: 1)))), to: &moved)
        let c = ReminderRules.entries(board: moved, now: Self.at(Self.day, hour: 20))
        #expect(c.map(\.key) != a.map(\.key), "a new due date reminds again")
    }

    @Test func doneClosedAndArchivedCardsAreNotReminded() {
        for op: Op in [.closeCard(card: "c2"), .archiveCard(card: "c2"), .moveCard(card: "c2", column: "done", placement: .bottom)] {
            var board = Self.board
            mustApply(op, to: &board)
            #expect(ReminderRules.entries(board: board, now: Self.at(Self.day.adding(days: 3), hour: 0)).isEmpty, "\(op.kind)")
        }
    }
}
