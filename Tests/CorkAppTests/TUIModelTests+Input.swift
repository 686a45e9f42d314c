import BoardClient
import BoardCore
import BoardWire
import CorkApp
import TerminalUI
import Testing

/// The input line: tab completion in context, and resolving a description conflict.
extension TUIModelTests {
    /// The model with the input focused, `text` typed and Tab pressed `tabs` times.
    static func completing(_ text: String, tabs: Int = 1, in model: TUIModel = model()) -> TUIModel {
        var model = model
        model.focus = .input
        type(text, into: &model)
        for _ in 0..<tabs { _ = model.update(key(.tab)) }
        return model
    }

    @Test func repeatedTabCyclesThroughTheCommands() {
        let lines = (1...5).map { Self.completing("/a", tabs: $0).input.text }
        #expect(lines == ["/add", "/archive", "/assign", "/away", "/add"])
        #expect(Self.completing("/a", tabs: 2).notice == "/add [/archive] /assign /away")
        // One candidate completes with a space, ready for the argument.
        #expect(Self.completing("/lastl").input.text == "/lastlog ")
        #expect(Self.completing("/nope").input.text == "/nope")
        #expect(Self.completing("/nope").notice == "no completion")
    }

    @Test func tabOnAnEmptyChatLineMovesFocusOnInsteadOfCompleting() {
        let empty = Self.completing("")
        #expect(empty.focus == .board)
        #expect(empty.notice != "no completion")
        // With text, Tab completes and the focus stays.
        #expect(Self.completing("/lastl").focus == .input)
    }

    @Test func tabCompletesCardNumbersThenColumnsForMove() {
        var t = Self.testBoard()
        t.apply(.addColumn(column: "review", name: "IN REVIEW", index: 2))
        var model = Self.model()
        model.board = t.board
        #expect((1...4).map { Self.completing("/move #", tabs: $0, in: model).input.text }
            == ["/move #1", "/move #2", "/move #3", "/move #1"])
        // A bare number is a card number too.
        #expect(Self.completing("/close 3", in: model).input.text == "/close #3 ")
        #expect((1...2).map { Self.completing("/move #2 d", tabs: $0, in: model).input.text }
            == ["/move #2 DOING", "/move #2 DONE"])
        // A column name with a space completes as the rest of the line, and the command then runs.
        var review = Self.completing("/move #2 in r", in: model)
        #expect(review.input.text == "/move #2 IN REVIEW ")
        #expect(review.update(Self.key(.enter)) == [.submit(.moveCard(card: "k2", column: "review", placement: .bottom))])
        // Editing after a Tab starts a new completion instead of cycling.
        var typed = Self.completing("/move #", in: model)
        #expect(typed.input.text == "/move #1")
        _ = typed.update(Self.key(.backspace))
        Self.type("2", into: &typed)
        _ = typed.update(Self.key(.tab))
        #expect(typed.input.text == "/move #2 ")
    }

    @Test func tabCompletesLabelsUsersAndArchivedCardsWhereTheyFit() {
        var t = Self.testBoard()
        t.apply(.createLabel(label: "blocked", name: "blocked", color: HexColor("#000000")!))
        t.apply(.archiveCard(card: "k3"))
        var model = Self.model()
        model.board = t.board
        #expect((1...2).map { Self.completing("/label #1 +b", tabs: $0, in: model).input.text }
            == ["/label #1 +blocked", "/label #1 +bug"])
        #expect(Self.completing("/label -bu", in: model).input.text == "/label -bug ")
        #expect(Self.completing("/assign #1 b", in: model).input.text == "/assign #1 bob ")
        #expect(Self.completing("/assign al", in: model).input.text == "/assign alice ")
        // Chat completes mentions and card numbers; other words are left alone.
        #expect(Self.completing("thanks @b", in: model).input.text == "thanks @bob ")
        #expect(Self.completing("see #", tabs: 2, in: model).input.text == "see #2")
        #expect(Self.completing("see b", in: model).input.text == "see b")
        // Only /restore offers archived cards.
        #expect(Self.completing("/restore #", in: model).input.text == "/restore #3 ")
        #expect((1...3).map { Self.completing("/archive #", tabs: $0, in: model).input.text }
            == ["/archive #1", "/archive #2", "/archive #1"])
        // /filter completes query terms.
        #expect(Self.completing("/filter is:open label:bu", in: model).input.text == "/filter is:open label:bug ")
        #expect(Self.completing("/filter assignee:b", in: model).input.text == "/filter assignee:bob ")
    }

    /// Board main with a description conflict on #1: the server refused "mine" because it holds "theirs" at seq 9.
    static func conflicted() -> TUIModel {
        var model = Self.model()
        let op = PendingOp(board: "main", mut: 4, request: .op(.editCard(EditCard(card: "k1", description: "mine", baseSeq: 3))))
        let reject = OpRejection(
            board: "main", mut: 4, code: .rejected(.conflict), message: "changed",
            current: .object(["seq": .int(9), "description": .string("theirs")]))
        #expect(model.update(.client(.rejected(RejectedOp(op: op, reject: reject)))).isEmpty)
        let conflict = model.conflict
        #expect(conflict?.card == "k1" && conflict?.mine == "mine" && conflict?.theirs == "theirs" && conflict?.seq == 9)
        #expect(model.feed.last?.text.contains("/keep mine, /theirs, or /merge") == true)
        return model
    }

    /// Keep mine overwrites the server's text (based on its seq); take theirs sends nothing; merge opens `$EDITOR` on
    /// both texts and waits for it with the conflict still open.
    @Test(arguments: [
        ("/keep", [TUIEffect.submit(.editCard(EditCard(card: "k1", description: "mine", baseSeq: 9)))]),
        ("/theirs", []),
        ("/merge", [
            .presence(.editing, card: "k1"),
            .edit("<<<<<<< mine\nmine\n=======\ntheirs\n>>>>>>> theirs\n", .mergeDescription("k1", baseSeq: 9)),
        ]),
    ])
    func aDescriptionConflictIsResolvedByTheUsersChoice(command: String, effects: [TUIEffect]) {
        var model = Self.conflicted()
        #expect(Self.enter(command, into: &model) == effects)
        #expect((model.conflict != nil) == (command == "/merge"))
        if command == "/theirs" { #expect(model.notice == "kept the server's description") }
    }

    @Test func mergingInTheEditorSubmitsTheMergedTextOverTheServersVersion() {
        var model = Self.conflicted()
        let opened = Self.enter("/merge", into: &model)
        guard case .edit(_, let purpose)? = opened.last else {
            Issue.record("no editor: \(opened)")
            return
        }
        // Leaving the editor unchanged keeps the choice open.
        #expect(model.update(.edited(purpose, nil)) == [.presence(.viewing, card: "k1")])
        #expect(model.conflict != nil)
        #expect(model.update(.edited(purpose, "mine and theirs")) == [
            .submit(.editCard(EditCard(card: "k1", description: "mine and theirs", baseSeq: 9))),
            .presence(.viewing, card: "k1"),
        ])
        #expect(model.conflict == nil)
        #expect(Self.enter("/keep", into: &model).isEmpty)
        #expect(model.notice == "no description conflict to resolve")
    }

    /// The marked text ends in a newline after `>>>>>>> theirs`; an editor keeps it under the merged lines. Two texts
    /// that end without one merge into one without one (the description gained a blank line at its end); a side that
    /// ended with one keeps it.
    @Test func aMergeEndsAsTheTwoTextsDo() {
        var model = Self.conflicted()
        guard case .edit(let marked, let purpose)? = Self.enter("/merge", into: &model).last else {
            Issue.record("no editor")
            return
        }
        #expect(marked.hasSuffix("theirs\n"))
        #expect(model.update(.edited(purpose, "mine and theirs\n")).first
            == .submit(.editCard(EditCard(card: "k1", description: "mine and theirs", baseSeq: 9))))
        let conflict = DescriptionConflict(card: "k1", mine: "a\n", theirs: "b", seq: 9)
        #expect(conflict.merged("a and b\n") == "a and b\n")
    }

    @Test func aMergeThatStillHasConflictMarkersIsNotSavedAndOpensAgainAsLeft() {
        var model = Self.conflicted()
        guard case .edit(_, let purpose)? = Self.enter("/merge", into: &model).last else {
            Issue.record("no editor")
            return
        }
        let half = "<<<<<<< mine\nmine, merged\n=======\ntheirs\n>>>>>>> theirs"
        let effects = model.update(.edited(purpose, half))
        #expect(effects == [.presence(.viewing, card: "k1")], "saved with conflict markers: \(effects)")
        #expect(model.conflict != nil)
        #expect(model.feed.last?.text.contains("still has conflict markers") == true, "\(model.feed.last?.text ?? "")")
        // /merge opens the text as the user left it; once the markers are gone it is saved.
        #expect(Self.enter("/merge", into: &model).last == .edit(half, .mergeDescription("k1", baseSeq: 9)))
        #expect(model.update(.edited(purpose, "mine and theirs")).first
            == .submit(.editCard(EditCard(card: "k1", description: "mine and theirs", baseSeq: 9))))
    }
}

extension TUIModelTests {
    /// Someone renames a card while this user edits its title: Enter warns once, naming the new title, instead of
    /// replacing it unseen; Enter again replaces it. Two people's title edits lost one without a word.
    @Test func aTitleRenamedByOthersDuringAnEditIsNotReplacedUnseen() {
        var model = Self.model()
        #expect(model.selectedCard?.id == "k1")
        _ = model.update(Self.key(.character("e")))
        #expect(model.input.text == "Fix login")
        Self.type(" page", into: &model)
        var t = Self.testBoard()
        t.apply(.editCard(EditCard(card: "k1", title: "Fix login (prod)")), as: "bob")
        _ = model.update(Self.loaded(t.board, changedByOthers: ["k1"]))
        #expect(model.update(Self.key(.enter)).isEmpty, "bob's title was replaced unseen")
        #expect(model.notice?.contains(#"renamed to "Fix login (prod)""#) == true, "\(model.notice ?? "no notice")")
        #expect(model.input.text == "Fix login page", "the edit is still open")
        let effects = model.update(Self.key(.enter))
        // Replacing the title now shown: the edit says so (`base_title`), so a rename after it is refused, not lost.
        #expect(
            effects.contains(.submit(.editCard(EditCard(card: "k1", title: "Fix login page", baseTitle: "Fix login (prod)")))),
            "\(effects)")
        // Without a rename meanwhile, Enter saves at once.
        _ = model.update(Self.key(.character("e")))
        Self.type("!", into: &model)
        #expect(
            model.update(Self.key(.enter))
                .contains(.submit(.editCard(EditCard(card: "k1", title: "Fix login (prod)!", baseTitle: "Fix login (prod)")))))
    }

    /// A title edit the server refuses because the card was renamed meanwhile (while it waited offline, say) comes
    /// back to the input line, saying the new title; Enter then replaces that one on purpose.
    @Test func aTitleEditRefusedAsAConflictComesBackToReplaceTheNewTitle() {
        var model = Self.model()
        let sent = EditCard(card: "k1", title: "Fix login page", baseTitle: "Fix login")
        var t = Self.testBoard()
        t.apply(.editCard(EditCard(card: "k1", title: "Fix login (prod)")), as: "bob")
        _ = model.update(Self.loaded(t.board, changedByOthers: ["k1"]))
        let pending = PendingOp(board: "main", mut: 9, request: .op(.editCard(sent)))
        let reject = OpRejection(
            board: "main", mut: 9, code: .rejected(.conflict), message: #"#1 was renamed to "Fix login (prod)" since this edit began"#,
            current: .object(["title": .string("Fix login (prod)")]))
        _ = model.update(.client(.rejected(RejectedOp(op: pending, reject: reject))))
        #expect(model.input.text == "Fix login page", "the refused title is back in the input line")
        #expect(model.notice?.contains(#"renamed to "Fix login (prod)""#) == true, "\(model.notice ?? "")")
        #expect(
            model.update(Self.key(.enter))
                .contains(.submit(.editCard(EditCard(card: "k1", title: "Fix login page", baseTitle: "Fix login (prod)")))))
    }

    /// The same refusal while the user is typing something else: the input line is theirs, and the feed keeps the
    /// refused title (it was dropped without a word).
    @Test func aRefusedTitleWhileTypingGoesToTheFeed() {
        var model = Self.model()
        model.focus = .input
        Self.type("r", into: &model)
        let pending = PendingOp(board: "main", mut: 9, request: .op(.editCard(EditCard(card: "k1", title: "Fix login page", baseTitle: "Fix login"))))
        let reject = OpRejection(board: "main", mut: 9, code: .rejected(.conflict), message: "#1 was renamed since this edit began")
        _ = model.update(.client(.rejected(RejectedOp(op: pending, reject: reject))))
        #expect(model.input.text == "r")
        #expect(model.feed.contains { $0.text.contains("Fix login page") && $0.kind == .error }, "\(model.feed.suffix(3).map(\.text))")
    }
}

extension TUIModelTests {
    /// Chat typed while the connection is down shows at once, marked as not sent, and gives way to the real line
    /// once it is sent; only a "queued" count said it was there.
    @Test func chatTypedOfflineShowsUntilItIsSent() {
        var model = Self.model()
        model.connection = .reconnecting(in: .seconds(5), lastError: "the server is closing (shutdown)")
        let effects = Self.enter("back in five", into: &model)
        #expect(effects == [.submit(.chat(text: "back in five"))])
        #expect(model.feed.last?.text == "<alice> back in five  · not sent yet", "\(model.feed.last?.text ?? "")")
        let queued = model.feed.count
        // Sent after the reconnection: the line the server echoes replaces the queued one.
        model.connection = .connected(endpoint: "127.0.0.1:7420", user: "alice")
        let chat = Activity(seq: 9, at: Timestamp(milliseconds: 0), actor: "alice", kind: "chat", text: "back in five")
        _ = model.update(.client(.activity(ActivityEvent(activity: chat, op: .chat(text: "back in five"), isOwn: true, board: model.board!))))
        #expect(!model.feed.contains { $0.queuedChat != nil }, "the queued line stayed")
        #expect(model.feed.count == queued && model.feed.last?.text == "<alice> back in five", "\(model.feed.map(\.text))")
        // Connected, a chat line shows when the server has it, as before.
        _ = Self.enter("hello", into: &model)
        #expect(model.feed.last?.text == "<alice> back in five")
    }
}
