import BoardCore
import Testing

@testable import CorkApp

@Suite struct FeedSentenceTests {
    /// Applies `op` as `actor` to `t` and renders its activity with the boards before and after.
    func say(_ op: Op, as actor: UserID = "alice", on t: inout TestBoard, sourceLocation: SourceLocation = #_sourceLocation)
        -> String
    {
        guard let (change, before) = t.apply(op, as: actor, sourceLocation: sourceLocation) else { return "" }
        return FeedSentence.render(change.activity, after: change.board, before: before)
    }

    /// One op of every kind, each with the sentence its real activity record must give.
    @Test func everyOpKindGivesASentence() {
        var t = TestBoard.standard()
        let day = Day("2026-03-01")!
        let expected: [(Op, UserID, String)] = [
            (.renameBoard(name: "Corkboard"), "alice", "alice renamed the board \"Main\" → \"Corkboard\""),
            (.setRemindHours(hours: 48), "alice", "alice set reminders to 48 h before a card is due"),
            (.setMember(user: "dave", role: .editor, name: "Dave"), "alice", "alice added dave as editor (Dave)"),
            (.setMember(user: "dave", role: .owner, name: nil), "alice", "alice changed dave's role editor → owner"),
            (.setMember(user: "dave", role: .owner, name: "David"), "alice", "alice renamed member dave \"Dave\" → \"David\""),
            // A first display name is given, not renamed from "" (the feed said `renamed member erin "" → "Erin"`).
            (.setMember(user: "erin", role: .viewer, name: nil), "alice", "alice added erin as viewer"),
            (.setMember(user: "erin", role: .viewer, name: "Erin"), "alice", "alice named member erin \"Erin\""),
            (.removeMember(user: "dave"), "alice", "alice removed dave from the board"),
            (.addColumn(column: "review", name: "REVIEW", index: 2), "alice", "alice added column REVIEW"),
            (.renameColumn(column: "review", name: "IN REVIEW"), "alice", "alice renamed column REVIEW → IN REVIEW"),
            (.moveColumn(column: "review", index: 0), "alice", "alice moved column IN REVIEW to position 1"),
            (.setWIPLimit(column: "doing", limit: WIPLimit(limit: 1, hard: false)), "alice",
             "alice set the WIP limit of DOING to 1 (soft)"),
            (.setWIPLimit(column: "review", limit: WIPLimit(limit: 3, hard: true)), "alice",
             "alice set the WIP limit of IN REVIEW to 3 (hard)"),
            // Only hard → soft: the limit stays, so nothing was cleared.
            (.setWIPLimit(column: "review", limit: WIPLimit(limit: 3, hard: false)), "alice",
             "alice made the WIP limit of IN REVIEW (3) soft"),
            (.setWIPLimit(column: "review", limit: nil), "alice", "alice cleared the WIP limit of IN REVIEW"),
            (.removeColumn(column: "review"), "alice", "alice removed column IN REVIEW"),
            (.addCard(AddCard(card: "c4", column: "todo", title: "Ship the release")), "bob",
             "bob added #4 \"Ship the release\" to TODO"),
            // What a card came with is said, so others learn of it (only its assignee heard, through the inbox).
            (.addCard(
                AddCard(
                    card: "c5", column: "todo", title: "Investigate 502s", due: Day("2026-12-03"), labels: ["bug", "docs"],
                    assignees: ["bob", "alice"], milestone: "v1")), "alice",
             "alice added #5 \"Investigate 502s\" to TODO (labels bug, Docs; due 2026-12-03; assigned themselves, bob; milestone \"v1.0\")"),
            (.moveCard(card: "c1", column: "doing", placement: .bottom), "alice",
             "alice moved #1 \"Login bug\" TODO → DOING (DOING is over its WIP limit)"),
            (.moveCard(card: "c1", column: "doing", placement: .top), "alice", "alice reordered #1 \"Login bug\" in DOING"),
            (.blockCard(card: "c4", by: "c2"), "alice", "alice marked #4 \"Ship the release\" as blocked by #2 \"Write docs\""),
            (.setInProgress(column: "done", on: true), "alice", "alice marked column DONE as in progress"),
            (.moveCard(card: "c4", column: "done", placement: .bottom, force: "the demo is today"), "alice",
             "alice moved #4 \"Ship the release\" TODO → DONE although blocked by #2 \"Write docs\": the demo is today"),
            (.moveCard(card: "c4", column: "todo", placement: .bottom), "alice", "alice moved #4 \"Ship the release\" DONE → TODO"),
            (.setInProgress(column: "done", on: false), "alice", "alice marked column DONE as not in progress"),
            (.unblockCard(card: "c4", by: "c2"), "alice",
             "alice marked #4 \"Ship the release\" as no longer blocked by #2 \"Write docs\""),
            (.setRecurrence(card: "c4", recurrence: Recurrence(every: .week, days: ["mon", "thu"])), "alice",
             "alice made #4 \"Ship the release\" recur every week on mon, thu"),
            (.setRecurrence(card: "c4", recurrence: nil), "alice", "alice stopped #4 \"Ship the release\" from recurring"),
            (.watchCard(card: "c4"), "alice", "alice watches #4 \"Ship the release\""),
            (.unwatchCard(card: "c4"), "alice", "alice stopped watching #4 \"Ship the release\""),
            (.editCard(EditCard(card: "c2", title: "Write the docs")), "carol-as-bob",
             "bob renamed #2 \"Write docs\" → \"Write the docs\""),
            (.editCard(EditCard(card: "c2", due: .set(day))), "alice",
             "alice set the due date of #2 \"Write the docs\" to 2026-03-01"),
            (.editCard(EditCard(card: "c2", due: .clear)), "alice", "alice cleared the due date of #2 \"Write the docs\""),
            (.editCard(EditCard(card: "c2", description: "All of it.\nAnd more.")), "alice",
             "alice edited the description of #2 \"Write the docs\": All of it. And more."),
            (.editCard(EditCard(card: "c2", description: "")), "alice", "alice cleared the description of #2 \"Write the docs\""),
            (.editCard(EditCard(card: "c2", title: "Write the docs!", description: "Every command")), "alice",
             "alice edited #2 \"Write the docs!\": title \"Write the docs\" → \"Write the docs!\", description \"Every command\""),
            (.editCard(EditCard(card: "c2", title: "Write the docs", description: "")), "alice",
             "alice edited #2 \"Write the docs\": title \"Write the docs!\" → \"Write the docs\", description cleared"),
            (.editCard(EditCard(card: "c2", milestone: .set("v1"))), "alice",
             "alice added #2 \"Write the docs\" to milestone \"v1.0\""),
            (.editCard(EditCard(card: "c2", milestone: .clear)), "alice",
             "alice removed #2 \"Write the docs\" from milestone \"v1.0\""),
            (.editCard(EditCard(card: "c2", ref: .set("GH-7"))), "alice", "alice set the ref of #2 \"Write the docs\" to GH-7"),
            (.editCard(EditCard(card: "c2", ref: .clear)), "alice", "alice cleared the ref of #2 \"Write the docs\""),
            (.editCard(EditCard(card: "c2", title: "Docs", due: .set(day), ref: .set("GH-8"))), "alice",
             "alice edited #2 \"Docs\": title \"Write the docs\" → \"Docs\", due 2026-03-01, ref GH-8"),
            (.addLabel(card: "c2", label: "docs"), "alice", "alice added label Docs to #2 \"Docs\""),
            (.removeLabel(card: "c2", label: "docs"), "alice", "alice removed label Docs from #2 \"Docs\""),
            (.assign(card: "c2", user: "bob"), "alice", "alice assigned bob to #2 \"Docs\""),
            (.assign(card: "c2", user: "alice"), "alice", "alice assigned themselves to #2 \"Docs\""),
            (.unassign(card: "c2", user: "alice"), "alice", "alice unassigned themselves from #2 \"Docs\""),
            (.unassign(card: "c2", user: "bob"), "alice", "alice unassigned bob from #2 \"Docs\""),
            (.closeCard(card: "c2"), "alice", "alice closed #2 \"Docs\""),
            (.reopenCard(card: "c2"), "alice", "alice reopened #2 \"Docs\""),
            (.archiveCard(card: "c4"), "alice", "alice archived #4 \"Ship the release\""),
            (.restoreCard(card: "c4"), "alice", "alice restored #4 \"Ship the release\""),
            (.addChecklistItem(card: "c2", item: "i1", text: "Outline", done: false, index: nil), "alice",
             "alice added \"Outline\" to the checklist of #2 \"Docs\""),
            (.addChecklistItem(card: "c2", item: "i2", text: "Draft", done: true, index: nil), "alice",
             "alice added \"Draft\" to the checklist of #2 \"Docs\" (done)"),
            (.editChecklistItem(card: "c2", item: "i1", text: nil, done: true), "alice",
             "alice checked off \"Outline\" on #2 \"Docs\""),
            (.editChecklistItem(card: "c2", item: "i1", text: nil, done: false), "alice",
             "alice unchecked \"Outline\" on #2 \"Docs\""),
            (.editChecklistItem(card: "c2", item: "i1", text: "Outline v2", done: true), "alice",
             "alice edited checklist item \"Outline\" → \"Outline v2\" on #2 \"Docs\" and checked it off"),
            (.removeChecklistItem(card: "c2", item: "i2"), "alice", "alice removed \"Draft\" from the checklist of #2 \"Docs\""),
            (.addComment(card: "c3", comment: "k1", text: "build 512 passed"), "ci-bot",
             "ci-bot commented on #3 \"Ship corkd\": build 512 passed"),
            (.editComment(card: "c3", comment: "k1", text: "build 512 passed\n(retried)"), "ci-bot",
             "ci-bot edited a comment on #3 \"Ship corkd\": build 512 passed (retried)"),
            (.deleteComment(card: "c3", comment: "k1"), "alice", "alice deleted a comment on #3 \"Ship corkd\""),
            (.createLabel(label: "perf", name: "perf", color: HexColor("#fbca04")!), "alice",
             "alice created label perf (#fbca04)"),
            (.updateLabel(label: "perf", name: "performance", color: nil), "alice", "alice renamed label perf → performance"),
            (.updateLabel(label: "perf", name: nil, color: HexColor("#000000")!), "alice",
             "alice recoloured label performance #fbca04 → #000000"),
            (.updateLabel(label: "perf", name: "speed", color: HexColor("#ffffff")!), "alice",
             "alice renamed label performance → speed and recoloured it #000000 → #ffffff"),
            (.deleteLabel(label: "perf"), "alice", "alice deleted label speed"),
            (.createMilestone(milestone: "v2", title: "v2.0", description: "Postgres", due: Day("2026-06-30")), "alice",
             "alice created milestone \"v2.0\" due 2026-06-30"),
            (.updateMilestone(milestone: "v2", title: "v2.0 GA", description: nil, due: nil), "alice",
             "alice renamed milestone \"v2.0\" → \"v2.0 GA\""),
            (.updateMilestone(milestone: "v2", title: nil, description: nil, due: .set(day)), "alice",
             "alice set the due date of milestone \"v2.0 GA\" to 2026-03-01"),
            (.updateMilestone(milestone: "v2", title: nil, description: nil, due: .clear), "alice",
             "alice cleared the due date of milestone \"v2.0 GA\""),
            (.updateMilestone(milestone: "v2", title: nil, description: "Postgres mode", due: nil), "alice",
             "alice edited the description of milestone \"v2.0 GA\": Postgres mode"),
            (.updateMilestone(milestone: "v2", title: "v2", description: "PG", due: .set(day)), "alice",
             "alice updated milestone \"v2\": title \"v2.0 GA\" → \"v2\", description \"PG\", due 2026-03-01"),
            (.closeMilestone(milestone: "v2"), "alice", "alice closed milestone \"v2\""),
            (.reopenMilestone(milestone: "v2"), "alice", "alice reopened milestone \"v2\""),
            (.deleteMilestone(milestone: "v2"), "alice", "alice deleted milestone \"v2\""),
            (.purgeCard(card: "c4"), "alice", "alice purged #4 \"Ship the release\""),
            (.chat(text: "moved #3 to DOING, @bob can you review?"), "carol",
             "<carol> moved #3 to DOING, @bob can you review?"),
        ]
        var kinds: Set<String> = []
        for (op, actor, sentence) in expected {
            let who: UserID = actor == "carol-as-bob" ? "bob" : actor
            #expect(say(op, as: who, on: &t) == sentence, "\(op.kind)")
            kinds.insert(op.kind)
        }
        #expect(kinds == Set(Op.allKinds), "missing kinds: \(Set(Op.allKinds).subtracting(kinds).sorted())")
    }

    /// An undo's record is its own effect: said as what it did, then which change it undoes — never "undid seq N:
    /// <effect>", which reads as if seq N had done the effect (undoing a restore read "undid seq 36: archived #5").
    @Test func undoSaysWhatItDidThenWhichSeqItUndoes() throws {
        var t = TestBoard.standard()
        let r_move = t.apply(.moveCard(card: "c3", column: "done", placement: .bottom))
        let move = try #require(r_move)
        let r_undo = t.undo(seq: move.change.activity.seq)
        let undo = try #require(r_undo)
        #expect(undo.change.activity.undoOf == move.change.activity.seq)
        #expect(FeedSentence.render(undo.change.activity, after: undo.change.board, before: undo.before)
            == "alice moved #3 \"Ship corkd\" DONE → DOING (undo of seq \(move.change.activity.seq))")
        #expect(FeedSentence.render(undo.change.activity, after: undo.change.board)
            == "alice moved #3 \"Ship corkd\" DONE → DOING (undo of seq \(move.change.activity.seq))")

        let r_add = t.apply(.addCard(AddCard(card: "c9", title: "Oops")))
        let add = try #require(r_add)
        let r_undoAdd = t.undo(seq: add.change.activity.seq)
        let undoAdd = try #require(r_undoAdd)
        #expect(FeedSentence.render(undoAdd.change.activity, after: undoAdd.change.board)
            == "alice archived #4 \"Oops\" (undo of seq \(add.change.activity.seq))")
        // A redo is an undo of the undo: the card comes back.
        let r_redo = t.undo(seq: undoAdd.change.activity.seq)
        let redo = try #require(r_redo)
        #expect(FeedSentence.render(redo.change.activity, after: redo.change.board)
            == "alice restored #4 \"Oops\" (undo of seq \(undoAdd.change.activity.seq))")
        // A feed that shows no seqs says undo or redo in words.
        #expect(FeedSentence.render(undoAdd.change.activity, after: undoAdd.change.board, undoWords: true)
            == "alice archived #4 \"Oops\" (undo)")
        #expect(FeedSentence.render(redo.change.activity, after: redo.change.board, undoWords: true, undoneWasUndo: true)
            == "alice restored #4 \"Oops\" (redo)")
    }

    /// History read later (`cork history`, the card detail) tells each change with the titles and column names of
    /// its own time, from the record, not today's board.
    @Test func oldChangesAreToldWithTheNamesOfTheirTime() throws {
        var t = TestBoard.standard()
        let added = try t.change(.addCard(AddCard(card: "c6", column: "todo", title: "Gamma")))
        let reordered = try t.change(.moveCard(card: "c6", column: "todo", placement: .top))
        let labelled = try t.change(.addLabel(card: "c6", label: "docs"))
        let item = try t.change(.addChecklistItem(card: "c6", item: "i1", text: "Draft", done: false, index: nil))
        let checked = try t.change(.editChecklistItem(card: "c6", item: "i1", text: nil, done: true))
        let moved = try t.change(.moveCard(card: "c6", column: "doing", placement: .bottom))
        let column = try t.change(.addColumn(column: "qa", name: "QA", index: nil))
        // Later: everything renamed, the card moved on, the label and the column gone.
        t.apply(.editCard(EditCard(card: "c6", title: "Gamma renamed")))
        t.apply(.moveCard(card: "c6", column: "done", placement: .bottom))
        t.apply(.renameColumn(column: "todo", name: "BACKLOG"))
        t.apply(.renameColumn(column: "doing", name: "NOW"))
        t.apply(.updateLabel(label: "docs", name: "documentation", color: nil))
        t.apply(.editChecklistItem(card: "c6", item: "i1", text: "Draft v2", done: nil))
        t.apply(.renameColumn(column: "qa", name: "TESTING"))
        t.apply(.removeColumn(column: "qa"))
        let today = t.board
        #expect(FeedSentence.render(added.activity, after: today) == "alice added #4 \"Gamma\" to TODO")
        #expect(FeedSentence.render(reordered.activity, after: today) == "alice reordered #4 \"Gamma\" in TODO")
        #expect(FeedSentence.render(labelled.activity, after: today) == "alice added label Docs to #4 \"Gamma\"")
        #expect(FeedSentence.render(item.activity, after: today)
            == "alice added \"Draft\" to the checklist of #4 \"Gamma\"")
        #expect(FeedSentence.render(checked.activity, after: today) == "alice checked off \"Draft\" on #4 \"Gamma\"")
        #expect(FeedSentence.render(moved.activity, after: today) == "alice moved #4 \"Gamma\" TODO → DOING")
        #expect(FeedSentence.render(column.activity, after: today) == "alice added column QA")

        // A record stored before records carried names (no `names`) still renders, with today's names.
        var old = reordered.activity
        old.names = nil
        #expect(FeedSentence.render(old, after: today) == "alice reordered #4 \"Gamma renamed\" in DONE")
    }

    @Test func longTitlesAreCutWithAnEllipsis() {
        var t = TestBoard.standard()
        let title = "Investigate the intermittent login failure on Safari when cookies are blocked"
        let sentence = say(.addCard(AddCard(card: "c9", title: title)), on: &t)
        #expect(sentence == "alice added #4 \"Investigate the intermittent login fail…\" to TODO")
        let quoted = sentence.split(separator: "\"")[1]
        #expect(quoted.count == FeedSentence.titleMax)
        // Forty characters exactly are left alone.
        let forty = String(repeating: "é", count: 40)
        #expect(say(.editCard(EditCard(card: "c9", title: forty)), on: &t).hasSuffix("→ \"\(forty)\""))
    }

    @Test func longChatAndCommentsAreCutAndKeptOnOneLine() {
        var t = TestBoard.standard()
        let chat = say(.chat(text: "line one\nline two\t\ttabbed " + String(repeating: "x", count: 300)), on: &t)
        #expect(chat.hasPrefix("<alice> line one line two tabbed xxx"))
        #expect(chat.hasSuffix("x…"))
        #expect(chat.count == "<alice> ".count + FeedSentence.textMax)
    }

    /// The full-screen feed shows chat and comments whole, but a long description is cut there too: a 5 KB one
    /// took a screenful of everyone's feed.
    @Test func aLongDescriptionIsCutEvenWhereChatIsShownWhole() {
        var t = TestBoard.standard()
        let long = (1...60).map { "Line \($0): lorem ipsum dolor sit amet" }.joined(separator: "\n")
        guard let (edit, _) = t.apply(.editCard(EditCard(card: "c2", description: long))),
            let (chat, _) = t.apply(.chat(text: String(repeating: "y", count: 400)))
        else { return }
        let line = FeedSentence.render(edit.activity, after: edit.board, textMax: .max)
        #expect(line.hasPrefix("alice edited the description of #2 \"Write docs\": Line 1: lorem ipsum dolor sit amet Line 2:"), "\(line)")
        #expect(line.hasSuffix("…") && line.count <= "alice edited the description of #2 \"Write docs\": ".count + 80, "\(line.count) characters")
        #expect(FeedSentence.render(chat.activity, after: chat.board, textMax: .max).count > 400, "chat stays whole")
    }

    /// The reducer never accepts escape sequences, but a feed line may come from an old or hostile server:
    /// the sentence still must not carry control characters to the terminal.
    @Test func controlCharactersNeverReachTheSentence() {
        let board = TestBoard.standard().board
        let chat = Activity(
            seq: 20, at: Timestamp(milliseconds: 0), actor: "mallory\u{1b}]0;pwned\u{7}", kind: "chat",
            text: "hi\u{1b}[2J\u{85}there\r\n")
        let sentence = FeedSentence.render(chat, after: board)
        #expect(!sentence.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(sentence == "<mallory ]0;pwned> hi [2J there")
    }

    @Test func purgedCardFallsBackToTheBoardBeforeAndThenToTheRecord() throws {
        var t = TestBoard.standard()
        let r_changebefore = t.apply(.purgeCard(card: "c2"))
        let (change, before) = try #require(r_changebefore)
        #expect(FeedSentence.render(change.activity, after: change.board, before: before) == "alice purged #2 \"Write docs\"")
        // Without the board before, the record's own old values name the card.
        #expect(FeedSentence.render(change.activity, after: change.board) == "alice purged #2 \"Write docs\"")
        // With nothing at all, the id.
        var bare = change.activity
        bare.changes = [:]
        bare.names = nil
        #expect(FeedSentence.render(bare, after: change.board) == "alice purged card c2")
    }

    @Test func removedThingsAreNamedFromTheBoardBefore() throws {
        var t = TestBoard.standard()
        let r_comment = t.apply(.addComment(card: "c1", comment: "k1", text: "hi"))
        let comment = try #require(r_comment)
        let r_label = t.apply(.addLabel(card: "c2", label: "docs"))
        let label = try #require(r_label)
        t.apply(.deleteLabel(label: "docs"))
        t.apply(.purgeCard(card: "c1"))
        // Rendered later, against today's board: c1 and docs are gone, and the records' names still name them.
        #expect(FeedSentence.render(comment.change.activity, after: t.board) == "alice commented on #1 \"Login bug\": hi")
        #expect(FeedSentence.render(label.change.activity, after: t.board) == "alice added label Docs to #2 \"Write docs\"")
        // A record without names (stored before they existed) takes them from the board before, else the ids.
        var oldComment = comment.change.activity
        oldComment.names = nil
        var oldLabel = label.change.activity
        oldLabel.names = nil
        #expect(FeedSentence.render(oldComment, after: t.board, before: comment.before)
            == "alice commented on #1 \"Login bug\": hi")
        #expect(FeedSentence.render(oldComment, after: t.board) == "alice commented on card c1: hi")
        #expect(FeedSentence.render(oldLabel, after: t.board, before: label.before)
            == "alice added label Docs to #2 \"Write docs\"")
        #expect(FeedSentence.render(oldLabel, after: t.board) == "alice added label docs to #2 \"Write docs\"")
    }

    @Test func unknownKindsAndWarningsFallBackGracefully() {
        let board = TestBoard.standard().board
        let future = Activity(seq: 99, at: Timestamp(milliseconds: 0), actor: "bob", kind: "board.archive")
        #expect(FeedSentence.render(future, after: board) == "bob made a change (board.archive)")
        let odd = Activity(
            seq: 99, at: Timestamp(milliseconds: 0), actor: "bob", kind: "card.close", card: "c1",
            changes: ["closed": FieldChange(old: .bool(false), new: .bool(true))], warning: "slow_down")
        #expect(FeedSentence.render(odd, after: board) == "bob closed #1 \"Login bug\" (warning: slow_down)")
    }

    @Test func everyOpKindHasASentenceOfItsOwn() {
        // The switch over `Op.Kind` is exhaustive: no kind falls into the "made a change (kind)" fallback, which
        // is kept for kinds from a newer server only.
        let board = TestBoard.standard().board
        for kind in Op.Kind.allCases {
            let activity = Activity(
                seq: 99, at: Timestamp(milliseconds: 0), actor: "bob", kind: kind.rawValue, card: "c1", text: "hi")
            let sentence = FeedSentence.describe(activity, after: board)
            #expect(!sentence.contains("(\(kind.rawValue))"), "\(kind.rawValue): \(sentence)")
        }
        let future = Activity(seq: 99, at: Timestamp(milliseconds: 0), actor: "bob", kind: "card.pin", card: "c1")
        #expect(FeedSentence.render(future, after: board) == "bob changed #1 \"Login bug\" (card.pin)")
    }
}
