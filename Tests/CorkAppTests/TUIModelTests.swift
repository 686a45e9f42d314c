import BoardClient
import BoardCore
import BoardWire
import CorkApp
import TerminalUI
import Testing

/// The full-screen client's pure parts: update (keys → effects) and render (model → screen lines).
@Suite struct TUIModelTests {
    static let today = Day(year: 2026, month: 3, day: 10)!

    /// Board main with TODO: #1 "Fix login" (bug, due 2026-03-01, overdue), #2 "Write docs"; DOING: #3 "Ship it"
    /// (WIP limit 1, hard); DONE empty. Members alice (owner) and bob (editor).
    static func board() -> Board { testBoard().board }

    /// ``board()`` with the changes that built it (for history), to apply more to.
    static func testBoard() -> TestBoard {
        var test = TestBoard()
        test.apply(.setMember(user: "bob", role: .editor, name: "Bob"))
        test.apply(.createLabel(label: "bug", name: "bug", color: HexColor("#d73a4a")!))
        test.apply(.addCard(AddCard(card: "k1", column: "todo", title: "Fix login", due: Day(year: 2026, month: 3, day: 1), labels: ["bug"])))
        test.apply(.addCard(AddCard(card: "k2", column: "todo", title: "Write docs")))
        test.apply(.addCard(AddCard(card: "k3", column: "doing", title: "Ship it")))
        test.apply(.setWIPLimit(column: "doing", limit: WIPLimit(limit: 1, hard: true)))
        return test
    }

    static func model(width: Int = 100, height: Int = 30) -> TUIModel {
        var model = TUIModel(boardID: "main", width: width, height: height, today: today)
        model.board = board()
        model.user = "alice"
        model.connection = .connected(endpoint: "127.0.0.1:7420", user: "alice")
        return model
    }

    static func key(_ key: Key, _ modifiers: KeyModifiers = []) -> TUIMessage { .key(KeyEvent(key, modifiers)) }

    /// Types `text` into the model, one key per character.
    static func type(_ text: String, into model: inout TUIModel) {
        for c in text { _ = model.update(key(.character(c))) }
    }

    /// `text` typed into the input line, then Enter: the effects of Enter. A line an earlier command left there (a
    /// refused command stays to be mended) is cleared first with Ctrl-U, as a user would.
    static func enter(_ text: String, into model: inout TUIModel) -> [TUIEffect] {
        model.focus = .input
        if model.purpose == .chat, model.input.text.hasPrefix("/") { _ = model.update(key(.character("u"), [.ctrl])) }
        type(text, into: &model)
        return model.update(key(.enter))
    }

    /// The board update a client reports when `board` is loaded or changed.
    static func loaded(_ board: Board, changedByOthers: Set<CardID> = []) -> TUIMessage {
        .client(.board(BoardUpdate(board: board, cause: .snapshot, changedByOthers: changedByOthers)))
    }

    // MARK: - Carrying a card

    @Test func pickUpCarryAndDropIsOneIntentMove() {
        var model = Self.model()
        #expect(model.selectedCard?.id == "k1")
        let picked = model.update(Self.key(.character(" ")))
        #expect(picked == [.presence(.dragging, card: "k1", column: "todo", index: 0)])
        // Carry it right, into DOING, and down below "Ship it": each step is a presence update, never an op.
        let right = model.update(Self.key(.right))
        #expect(right == [.presence(.dragging, card: "k1", column: "doing", index: 0)])
        let down = model.update(Self.key(.down))
        #expect(down == [.presence(.dragging, card: "k1", column: "doing", index: 1)])
        #expect(model.update(Self.key(.down)) == [.presence(.dragging, card: "k1", column: "doing", index: 1)])
        let dropped = model.update(Self.key(.enter))
        #expect(dropped == [
            .submit(.moveCard(card: "k1", column: "doing", placement: Placement(after: "k3"))),
            .presence(.viewing, card: "k1"),
        ])
        #expect(model.carry == nil)
    }

    @Test func droppingAtTheTopPlacesBeforeTheFirstCard() {
        var model = Self.model()
        _ = model.update(Self.key(.down))
        #expect(model.selectedCard?.id == "k2")
        _ = model.update(Self.key(.character("m")))
        _ = model.update(Self.key(.up))
        let dropped = model.update(Self.key(.enter))
        #expect(dropped.first == .submit(.moveCard(card: "k2", column: "todo", placement: Placement(before: "k1"))))
    }

    @Test func escapePutsTheCardBackWithoutAnOp() {
        var model = Self.model()
        _ = model.update(Self.key(.character(" ")))
        _ = model.update(Self.key(.right))
        let cancelled = model.update(Self.key(.escape))
        #expect(cancelled == [.presence(.viewing, card: "k1")])
        #expect(model.carry == nil)
        #expect(!cancelled.contains { if case .submit = $0 { true } else { false } })
    }

    @Test func aCarriedCardThatSomeoneArchivesIsDropped() {
        var model = Self.model()
        _ = model.update(Self.key(.character(" ")))
        var board = model.board!
        _ = board.apply(.archiveCard(card: "k1"), context: ApplyContext(actor: "bob", role: .owner, now: Timestamp(milliseconds: 0), seq: 99))
        _ = model.update(.client(.board(BoardUpdate(board: board, cause: .deltas, changedByOthers: ["k1"]))))
        #expect(model.carry == nil)
        // Said with the card's number and title: the drag silently vanished, and the Enter meant as the drop opened
        // another card.
        #expect(model.notice == "#1 \"Fix login\" was archived while you carried it; nothing was moved", "\(model.notice ?? "")")
        #expect(model.update(Self.key(.enter)) == [.presence(.viewing, card: "k2"), .fetchHistory("k2")])
    }

    @Test func aCarriedCardThatSomeoneMovesSaysWhereItWentAndTheDropStillWorks() {
        var model = Self.model()
        _ = model.update(Self.key(.character(" ")))
        var board = model.board!
        _ = board.apply(.moveCard(card: "k1", column: "done", placement: .bottom), context: ApplyContext(actor: "bob", role: .owner, now: Timestamp(milliseconds: 0), seq: 99))
        _ = model.update(.client(.board(BoardUpdate(board: board, cause: .deltas, changedByOthers: ["k1"]))))
        // The drop would put the card back where this user holds it, undoing the other's move without a word.
        #expect(model.carry?.card == "k1")
        #expect(model.notice == "#1 was moved to DONE while you carried it: Enter still drops it here, Esc leaves it in DONE", "\(model.notice ?? "")")
        // A change that leaves its column alone (a title) says nothing new.
        _ = model.update(Self.key(.escape))
        _ = model.update(Self.key(.character(" ")))
        let before = model.notice
        _ = board.apply(.editCard(EditCard(card: "k1", title: "Fix login v2")), context: ApplyContext(actor: "bob", role: .owner, now: Timestamp(milliseconds: 0), seq: 100))
        _ = model.update(.client(.board(BoardUpdate(board: board, cause: .deltas, changedByOthers: ["k1"]))))
        #expect(model.notice == before)
        // Moved into the column the card is held over: the notice does not offer two keys that do the same.
        var over = Self.model()
        _ = over.update(Self.key(.character(" ")))
        _ = over.update(Self.key(.right))
        _ = over.update(Self.key(.right))
        var moved = over.board!
        _ = moved.apply(.moveCard(card: "k1", column: "done", placement: .bottom), context: ApplyContext(actor: "bob", role: .owner, now: Timestamp(milliseconds: 0), seq: 99))
        _ = over.update(.client(.board(BoardUpdate(board: moved, cause: .deltas, changedByOthers: ["k1"]))))
        #expect(over.notice == "#1 was moved to DONE, where you hold it, while you carried it: Enter drops it at your place, Esc where it went", "\(over.notice ?? "")")
    }

    @Test func aTitleBeingTypedForACardSomeoneArchivesSaysSo() {
        var model = Self.model()
        _ = model.update(Self.key(.character("e")))
        Self.type(" v2", into: &model)
        var board = model.board!
        _ = board.apply(.archiveCard(card: "k1"), context: ApplyContext(actor: "bob", role: .owner, now: Timestamp(milliseconds: 0), seq: 99))
        _ = model.update(.client(.board(BoardUpdate(board: board, cause: .deltas, changedByOthers: ["k1"]))))
        #expect(model.notice == "#1 was archived while you typed: Enter still saves it to the archived card, Esc drops it", "\(model.notice ?? "")")
        #expect(model.input.text.hasSuffix(" v2"), "the title typed stays")
    }

    // MARK: - Other keys

    @Test func shiftKeysReorderAndMoveBetweenColumns() {
        var model = Self.model()
        #expect(model.update(Self.key(.character("J"))) == [.submit(.moveCard(card: "k1", column: "todo", placement: Placement(after: "k2")))])
        // Into DOING without its hard limit of 1 (a move that limit refuses leaves the selection where it is).
        var t = Self.testBoard()
        t.apply(.setWIPLimit(column: "doing", limit: nil))
        var other = Self.model()
        _ = other.update(Self.loaded(t.board))
        #expect(other.update(Self.key(.character("L"))) == [.submit(.moveCard(card: "k1", column: "doing", placement: .bottom))])
        #expect(other.column == 1 && other.selectedCard?.id == "k1")
    }

    @Test func multiSelectThenArchiveAppliesToEveryMarkedCard() {
        var model = Self.model()
        _ = model.update(Self.key(.character("v")))
        _ = model.update(Self.key(.character(" ")))
        _ = model.update(Self.key(.down))
        _ = model.update(Self.key(.character(" ")))
        #expect(model.marked == ["k1", "k2"])
        let archived = model.update(Self.key(.character("x")))
        #expect(archived == [.submit(.archiveCard(card: "k1")), .submit(.archiveCard(card: "k2"))])
    }

    @Test func theInputLineIsChatAndSlashCommands() {
        var model = Self.model()
        _ = model.update(Self.key(.tab))
        _ = model.update(Self.key(.tab))
        #expect(model.focus == .input)
        for c in "hi all" { _ = model.update(Self.key(.character(c))) }
        #expect(model.update(Self.key(.enter)) == [.submit(.chat(text: "hi all"))])
        for c in "/move #2 done" { _ = model.update(Self.key(.character(c))) }
        #expect(model.update(Self.key(.enter)) == [.submit(.moveCard(card: "k2", column: "done", placement: .bottom))])
        for c in "/filter label:bug" { _ = model.update(Self.key(.character(c))) }
        _ = model.update(Self.key(.enter))
        #expect(model.visibleCards(0).map(\.id) == ["k1"])
        #expect(model.statusText.contains("filter: label:bug"))
        // A filter typed in the input line leaves the focus there: what is typed next is not read as board keys.
        #expect(model.focus == .input)
        for c in "/mvoe 1 done" { _ = model.update(Self.key(.character(c))) }
        #expect(model.update(Self.key(.enter)).isEmpty)
        #expect(model.notice?.contains("unknown command /mvoe") == true)
    }

    @Test func tabCompletesCommandsAndCardNumbers() {
        var model = Self.model()
        model.focus = .input
        for c in "/arc" { _ = model.update(Self.key(.character(c))) }
        _ = model.update(Self.key(.tab))
        #expect(model.input.text == "/archive ")
        for c in "#" { _ = model.update(Self.key(.character(c))) }
        _ = model.update(Self.key(.tab))
        #expect(model.input.text.hasPrefix("/archive #"))
    }

    @Test func undoTakesTheLastOwnChange() {
        var model = Self.model()
        #expect(model.update(Self.key(.character("u"))).isEmpty)
        let board = model.board!
        let activity = Activity(seq: 7, at: Timestamp(milliseconds: 0), actor: "alice", kind: "card.close", card: "k1", changes: ["closed": FieldChange(old: .bool(false), new: .bool(true))])
        _ = model.update(.client(.activity(ActivityEvent(activity: activity, op: .closeCard(card: "k1"), isOwn: true, board: board))))
        #expect(model.update(Self.key(.character("u"))) == [.undo(seq: 7)])
    }

    @Test func quittingWithQueuedOpsAsksTwice() {
        var model = Self.model()
        _ = model.update(.pending(2))
        #expect(model.update(Self.key(.character("q"))).isEmpty)
        #expect(model.notice == "press q again to quit anyway (2 ops not yet confirmed, lost on quitting: another cork keeps this board's queue)")
        #expect(model.update(Self.key(.character("q"))) == [.quit])
        // With the journal, quitting loses none, and the notice says so (it read as if they would be lost).
        var kept = Self.model()
        kept.journalKept = true
        _ = kept.update(.pending(1))
        _ = kept.update(Self.key(.character("q")))
        #expect(kept.notice == "press q again to quit (1 op not yet confirmed: kept, and sent at the next start)")
    }

    @Test func aDescriptionConflictOffersKeepTheirsOrMerge() {
        var model = Self.model()
        let op = PendingOp(board: "main", mut: 4, request: .op(.editCard(EditCard(card: "k1", description: "mine", baseSeq: 3))))
        let reject = OpRejection(board: "main", mut: 4, code: .rejected(.conflict), message: "changed", current: .object(["seq": .int(9), "description": .string("theirs")]))
        _ = model.update(.client(.rejected(RejectedOp(op: op, reject: reject))))
        #expect(model.conflict?.theirs == "theirs")
        model.focus = .input
        for c in "/keep" { _ = model.update(Self.key(.character(c))) }
        #expect(model.update(Self.key(.enter)) == [.submit(.editCard(EditCard(card: "k1", description: "mine", baseSeq: 9)))])
        #expect(model.conflict == nil)
    }

    // MARK: - Render

    /// Members whose initials would be the same (bob and bot both `BO`) are told apart on the cards: bob read a card
    /// assigned to the bot as his own.
    @Test func membersWithTheSameInitialsAreToldApartOnCards() {
        var test = Self.testBoard()
        test.apply(.setMember(user: "bot", role: .editor, name: nil))
        test.apply(.assign(card: "k1", user: "bot"))
        test.apply(.assign(card: "k2", user: "bob"))
        test.apply(.assign(card: "k2", user: "alice"))
        var model = Self.model()
        model.board = test.board
        let lines = model.render().lines
        #expect(lines.contains { $0.contains("BT") } && lines.contains { $0.contains("BB,AL") || $0.contains("AL,BB") }, "\(lines)")
        #expect(!lines.contains { $0.contains("BO") }, "\(lines)")
    }

    @Test func theBoardShowsCountsWIPBadgeCardsAndTheFeed() {
        var model = Self.model()
        let activity = Activity(seq: 9, at: Timestamp(milliseconds: 0), actor: "bob", kind: "chat", text: "morning @alice", changes: [:])
        _ = model.update(.client(.activity(ActivityEvent(activity: activity, op: .chat(text: "morning @alice"), isOwn: false, board: model.board!))))
        let screen = model.render()
        let lines = screen.lines
        #expect(lines[0].contains("TODO 2"))
        #expect(lines[0].contains("DOING 1/1"))
        #expect(lines[1].contains("#1 Fix login"))
        #expect(lines[2].contains("bug") && lines[2].contains("2026-03-01"))
        #expect(lines.contains { $0.contains("<bob> morning @alice") })
        #expect(lines[model.height - 2].contains("alice@main · connected"))
        // DOING is at its hard limit: its header is red.
        let header = screen.spans(0).first { $0.text.contains("DOING") }
        #expect(header?.style.foreground == .ansi(.red))
        // The overdue date is red; the mention is highlighted.
        let due = screen.spans(2).first { $0.text.contains("2026-03-01") }
        #expect(due?.style.foreground == .ansi(.red))
        let mention = (0..<model.height).flatMap { screen.spans($0) }.first { $0.text.contains("morning @alice") }
        #expect(mention?.style.attributes.contains(.bold) == true)
    }

    @Test func labelChipsShowTheirColourWithTextByLuminanceAndDowngradeTo256Colours() {
        var t = Self.testBoard()
        t.apply(.createLabel(label: "docs", name: "docs", color: HexColor("#fbca04")!))
        t.apply(.addLabel(card: "k2", label: "docs"))
        var model = Self.model()
        model.board = t.board
        let screen = model.render()
        // #d73a4a is dark (luminance 0.42): white text; #fbca04 is light (0.78): black text.
        let bug = screen.spans(2).first { $0.text == "bug" }
        #expect(bug?.style == Style(foreground: .rgb(red: 255, green: 255, blue: 255), background: .rgb(red: 0xd7, green: 0x3a, blue: 0x4a)))
        let docs = screen.spans(4).first { $0.text == "docs" }
        #expect(docs?.style == Style(foreground: .rgb(red: 0, green: 0, blue: 0), background: .rgb(red: 0xfb, green: 0xca, blue: 0x04)))
        // A truecolor terminal gets the exact colour; a 256-colour one the nearest palette entry (#d73a4a → 167).
        let truecolor = Renderer(colorMode: .trueColor).render(from: nil, to: screen)
        #expect(truecolor.contains("38;2;255;255;255;48;2;215;58;74m"))
        let palette = Renderer(colorMode: .palette256).render(from: nil, to: screen)
        #expect(palette.contains("38;5;231;48;5;167m"))
        #expect(!palette.contains("48;2;"))
    }

    @Test func anotherUsersPresenceShowsOnTheCardAndTheirGhostWhereItHovers() {
        var model = Self.model()
        let viewing = PresenceEntry(session: "s-2", user: "bob", state: .dragging, card: "k2", column: "doing", index: 0)
        _ = model.update(.client(.presence(PresenceEvent(sessions: ["s-2": viewing], change: .updated(viewing)))))
        let lines = model.render().lines
        #expect(lines.contains { $0.contains("✥BO") })
        #expect(lines.contains { $0.contains("bob is dragging") })
        #expect(lines.contains { $0.contains("bob joined") })
    }

    @Test func aNarrowTerminalShowsFewerColumnsAndScrollsToTheSelection() {
        var model = Self.model(width: 40, height: 12)
        var lines = model.render().lines
        #expect(lines[0].contains("TODO"))
        #expect(!lines[0].contains("DONE"))
        _ = model.update(Self.key(.right))
        _ = model.update(Self.key(.right))
        lines = model.render().lines
        #expect(lines[0].contains("DONE"))
        #expect(lines.allSatisfy { DisplayWidth.of($0) <= 40 })
    }

    @Test func anEightyByTwentyFourTerminalShowsEveryColumnTheFeedStatusAndInput() {
        let model = Self.model(width: 80, height: 24)
        let lines = model.render().lines
        #expect(lines.count == 24)
        #expect(lines.allSatisfy { DisplayWidth.of($0) == 80 })
        #expect(lines[0].contains("TODO 2") && lines[0].contains("DOING 1/1") && lines[0].contains("DONE 0"))
        #expect(lines[model.boardHeight].hasPrefix("─ feed"))
        #expect(lines[22].contains("alice@main · connected"))
        #expect(lines[23].hasPrefix("> "))
    }

    @Test func wideCharactersKeepColumnsAligned() {
        var model = Self.model()
        var board = model.board!
        _ = board.apply(.addCard(AddCard(card: "k4", column: "todo", title: "修正ログイン 🚀 emoji")), context: ApplyContext(actor: "alice", role: .owner, now: Timestamp(milliseconds: 0), seq: 50))
        model.board = board
        let screen = model.render()
        // The separator after TODO is at the same screen column on every row.
        let columns = (0..<model.boardHeight).compactMap { y -> Int? in
            var x = 0
            for span in screen.spans(y) {
                if let i = span.text.firstIndex(of: "│") { return x + DisplayWidth.of(span.text[..<i]) }
                x += DisplayWidth.of(span.text)
            }
            return nil
        }
        #expect(Set(columns).count == 1, "\(columns)")
        #expect(screen.lines.contains { $0.contains("修正ログイン") })
    }

    @Test func anIdleModelRendersTheSameFrameSoNothingIsWritten() {
        let model = Self.model()
        let renderer = Renderer(colorMode: .trueColor)
        #expect(renderer.render(from: model.render(), to: model.render()).isEmpty)
    }
}
