import BoardClient
import BoardClientCore
import BoardCore
import BoardWire
import Foundation
import CorkApp
import TerminalUI
import Testing

/// What a new team tripped over in the full-screen client: each test failed before its fix.
extension TUIModelTests {
    /// A move refused by the server (here DOING's hard limit) rolls the card back, and the selection goes with it:
    /// the next pick-up acts on the card that came back, not on whatever took its place in DOING.
    @Test func aRefusedMoveLeavesTheSelectionOnTheCardThatRolledBack() {
        var model = Self.model()
        _ = model.update(Self.key(.down))
        #expect(model.selectedCard?.id == "k2")
        _ = model.update(Self.key(.character(" ")))
        _ = model.update(Self.key(.right))
        let dropped = model.update(Self.key(.enter))
        guard case .submit(let op)? = dropped.first else {
            Issue.record("no move was submitted: \(dropped)")
            return
        }
        // The server refuses it; the client library reports the rejection, then the board without the move.
        let pending = PendingOp(board: "main", mut: 7, request: .op(op))
        let reject = OpRejection(board: "main", mut: 7, code: .rejected(.wipLimit), message: "DOING is at its WIP limit of 1")
        _ = model.update(.client(.rejected(RejectedOp(op: pending, reject: reject))))
        _ = model.update(.client(.board(BoardUpdate(board: Self.board(), cause: .rollback, changedByOthers: []))))
        #expect(model.selectedCard?.id == "k2", "selected \(model.selectedCard?.id.rawValue ?? "nothing")")
        #expect(model.column == 0)
        // Said in a sentence that names the card and why, not as the op's wire name.
        #expect(model.feed.last?.text == "#2 was not moved: DOING is full (1/1): move a card out, or /column wip to raise it")
    }

    /// Control keys are not their letters: Ctrl-L repaints, Ctrl-K and Ctrl-J do nothing on the board.
    /// Someone else reorders the column the selection is in: it stays on the card the user chose, so the next key
    /// acts on that card (and the others' marker of this user stays on it), not on whatever took its row.
    @Test func theSelectionStaysOnItsCardWhenOthersReorderItsColumn() {
        var model = Self.model()
        _ = model.update(Self.key(.down))
        #expect(model.selectedCard?.id == "k2")
        var board = model.board!
        let context = ApplyContext(actor: "bob", role: .editor, now: Timestamp(milliseconds: 0), seq: 90)
        // bob moves k2's neighbour below it, then adds a card at the top: k2 goes from row 1 to row 0, then to row 1.
        _ = board.apply(.moveCard(card: "k1", column: "todo", placement: Placement(after: "k2")), context: context)
        _ = model.update(.client(.board(BoardUpdate(board: board, cause: .deltas, changes: .parts(cards: ["k1"], columns: ["todo"]), changedByOthers: ["k1"]))))
        #expect(model.selectedCard?.id == "k2", "selected \(model.selectedCard?.id.rawValue ?? "nothing")")
        _ = board.apply(.addCard(AddCard(card: "k9", column: "todo", placement: .top, title: "New on top")), context: context)
        _ = model.update(.client(.board(BoardUpdate(board: board, cause: .deltas, changes: .parts(cards: ["k9"], columns: ["todo"]), changedByOthers: ["k9"]))))
        #expect(model.selectedCard?.id == "k2", "selected \(model.selectedCard?.id.rawValue ?? "nothing")")
        // A card moved out of the column by someone else leaves the selection at its place there.
        _ = board.apply(.moveCard(card: "k2", column: "done", placement: .top), context: context)
        _ = model.update(.client(.board(BoardUpdate(board: board, cause: .deltas, changes: .parts(cards: ["k2"], columns: ["todo", "done"]), changedByOthers: ["k2"]))))
        #expect(model.columns[model.column].id == "todo")
    }

    /// The user's own `K` (and `J`, `H`/`L`, a drop) moves the selection with the card: once the board shows the
    /// move, the selection is on the card moved, so `K` again moves it further up and `e` edits it.
    @Test func theSelectionGoesWithTheCardTheUserMoves() {
        var model = Self.model()
        var board = model.board!
        let context = ApplyContext(actor: "bob", role: .editor, now: Timestamp(milliseconds: 0), seq: 90)
        _ = board.apply(.addCard(AddCard(card: "k4", column: "todo", title: "Third")), context: context)
        _ = model.update(.client(.board(BoardUpdate(board: board, cause: .deltas, changes: .parts(cards: ["k4"], columns: ["todo"]), changedByOthers: ["k4"]))))
        _ = model.update(Self.key(.down))
        _ = model.update(Self.key(.down))
        #expect(model.selectedCard?.id == "k4")
        for expected in [1, 0] {
            let effects = model.update(Self.key(.character("K")))
            guard case .submit(let op)? = effects.first else {
                Issue.record("K sent no move: \(effects)")
                return
            }
            // The client shows the move at once (optimistic), as its own change.
            _ = board.apply(op, context: ApplyContext(actor: "alice", role: .owner, now: Timestamp(milliseconds: 0), seq: 91))
            _ = model.update(.client(.board(BoardUpdate(board: board, cause: .local, changes: .parts(cards: ["k4"], columns: ["todo"]), changedByOthers: []))))
            #expect(model.selectedCard?.id == "k4", "selected \(model.selectedCard?.id.rawValue ?? "nothing")")
            #expect(model.row == expected)
        }
        // Moved to the next column with L, it is still the one selected there.
        let moved = model.update(Self.key(.character("L")))
        guard case .submit(let op)? = moved.first else {
            Issue.record("L sent no move: \(moved)")
            return
        }
        _ = board.apply(op, context: ApplyContext(actor: "alice", role: .owner, now: Timestamp(milliseconds: 0), seq: 92))
        _ = model.update(.client(.board(BoardUpdate(board: board, cause: .local, changes: .parts(cards: ["k4"], columns: ["todo", "doing"]), changedByOthers: []))))
        #expect(model.selectedCard?.id == "k4", "selected \(model.selectedCard?.id.rawValue ?? "nothing")")
    }

    @Test func ctrlLRepaintsAndUnboundControlKeysDoNothing() {
        var model = Self.model()
        #expect(model.update(Self.key(.character("l"), .ctrl)) == [.repaint])
        #expect(model.column == 0 && model.selectedCard?.id == "k1")
        #expect(model.update(Self.key(.character("j"), .ctrl)).isEmpty)
        #expect(model.overlay == nil, "Ctrl-J opened the card")
        #expect(model.update(Self.key(.character("k"), .ctrl)).isEmpty)
        #expect(model.selectedCard?.id == "k1")
        // While carrying, Ctrl-L repaints and the card stays where it is.
        _ = model.update(Self.key(.character(" ")))
        #expect(model.update(Self.key(.character("l"), .ctrl)) == [.repaint])
        #expect(model.carry?.column == 0)
        // The input line keeps its own editing keys.
        model.focus = .input
        Self.type("abc", into: &model)
        _ = model.update(Self.key(.character("a"), .ctrl))
        Self.type("x", into: &model)
        #expect(model.input.text == "xabc")
    }

    /// A notice longer than the status line ends in `…` where it is cut, so that it is seen to go on.
    @Test func aLongNoticeIsCutWithAnEllipsis() {
        var model = Self.model()
        model.notice = String(repeating: "word ", count: 60) + "END"
        let lines = model.render().lines
        // The status line (the feed, above it, has the notice whole, wrapped).
        let status = lines.last { $0.contains("word word") } ?? ""
        #expect(status.hasSuffix("…") && !status.contains("END"), "\(status)")
    }

    /// Esc in the input line keeps a half-typed chat line as a draft; `:` brings it back.
    @Test func escapeKeepsTheChatDraft() {
        var model = Self.model()
        _ = model.update(Self.key(.character(":")))
        Self.type("half a thought", into: &model)
        _ = model.update(Self.key(.escape))
        #expect(model.focus == .board)
        #expect(model.notice?.contains("draft kept") == true)
        // Once the notice is gone, the empty input line still says there is a draft (it grew unseen, typed over).
        _ = model.update(Self.key(.character("j")))
        #expect(model.render().lines.contains { $0.contains("a draft is kept: : brings it back") })
        _ = model.update(Self.key(.character(":")))
        #expect(model.focus == .input)
        #expect(model.input.text == "half a thought")
    }

    /// `/` then Esc with nothing typed keeps no draft: the `/filter ` the key put there would otherwise come back
    /// with the next Tab or `:`, and a chat line typed after it became a filter.
    @Test func escapeRightAfterSlashKeepsNoDraft() {
        var model = Self.model()
        _ = model.update(Self.key(.character("/")))
        _ = model.update(Self.key(.escape))
        #expect(model.draft == nil)
        #expect(model.notice?.contains("draft kept") != true)
        _ = model.update(Self.key(.character(":")))
        #expect(model.input.text == "")
        Self.type("hello all", into: &model)
        let sent = model.update(Self.key(.enter))
        #expect(sent == [.submit(.chat(text: "hello all"))], "\(sent)")
        // A query typed after `/` is a draft like any other.
        _ = model.update(Self.key(.escape))
        _ = model.update(Self.key(.character("/")))
        Self.type("label:bug", into: &model)
        _ = model.update(Self.key(.escape))
        #expect(model.draft == "/filter label:bug")
    }

    /// A filter opened from the board with `/` hands the focus back to the board, where `/` opens the query again
    /// to refine it.
    @Test func slashAfterAFilterRefinesIt() {
        var model = Self.model()
        _ = model.update(Self.key(.character("/")))
        #expect(model.input.text == "/filter ")
        Self.type("label:bug", into: &model)
        _ = model.update(Self.key(.enter))
        #expect(model.filter?.text == "label:bug")
        #expect(model.focus == .board)
        _ = model.update(Self.key(.character("/")))
        #expect(model.focus == .input)
        #expect(model.input.text == "/filter label:bug ")
    }

    /// Ctrl-U in a filter opened with `/` clears the query, not `/filter ` with it: the next words were posted to
    /// everyone as chat. Enter on the bare `/filter ` then clears the filter.
    @Test func ctrlUInAFilterClearsTheQueryOnly() {
        var model = Self.model()
        _ = model.update(Self.key(.character("/")))
        Self.type("label:bug", into: &model)
        _ = model.update(Self.key(.enter))
        _ = model.update(Self.key(.character("/")))
        _ = model.update(Self.key(.character("u"), .ctrl))
        #expect(model.input.text == "/filter ")
        Self.type("due:overdue", into: &model)
        #expect(model.update(Self.key(.enter)) == [], "nothing is sent")
        #expect(model.filter?.text == "due:overdue")
        _ = model.update(Self.key(.character("/")))
        _ = model.update(Self.key(.character("u"), .ctrl))
        _ = model.update(Self.key(.enter))
        #expect(model.filter == nil)
        // A query the parser refused stays in the line to mend; Ctrl-U there keeps `/filter ` too.
        _ = model.update(Self.key(.character("/")))
        _ = model.update(Self.key(.character("u"), .ctrl))
        Self.type("due:bogus", into: &model)
        _ = model.update(Self.key(.enter))
        #expect(model.input.text == "/filter due:bogus")
        _ = model.update(Self.key(.character("u"), .ctrl))
        #expect(model.input.text == "/filter ")
        Self.type("label:bug", into: &model)
        #expect(model.update(Self.key(.enter)) == [], "the query is not posted as chat")
        #expect(model.filter?.text == "label:bug")
        // In a chat line Ctrl-U still clears it all.
        _ = model.update(Self.key(.tab))
        Self.type("typo", into: &model)
        _ = model.update(Self.key(.character("u"), .ctrl))
        #expect(model.input.text == "")
    }

    /// `/` on the board, then the name of a command without arguments (`members`): the command, not a filter that
    /// empties the board, unless some card matches the word.
    @Test func aCommandNameTypedAsAFilterRunsTheCommand() {
        var model = Self.model()
        _ = model.update(Self.key(.character("/")))
        Self.type("members", into: &model)
        _ = model.update(Self.key(.enter))
        #expect(model.filter == nil)
        #expect(model.overlay == .members, "\(String(describing: model.overlay))")
        #expect(TUIModel.commandTypedAsFilter("/who") == "/who")
        #expect(TUIModel.commandTypedAsFilter("members only") == nil)
        #expect(TUIModel.commandTypedAsFilter("quit") == nil, "never a command that could end or change anything")
    }

    /// `/filter` typed as a command in the input line stays there: a chat line typed next must not be read as board
    /// keys (`e` editing a title, `h` moving the selection). A query the parser refuses stays in the line to mend.
    @Test func aFilterTypedInTheInputLineKeepsTheFocusThere() {
        var model = Self.model()
        _ = Self.enter("/filter label:bug", into: &model)
        #expect(model.filter?.text == "label:bug")
        #expect(model.focus == .input)
        Self.type("hey all", into: &model)
        #expect(model.update(Self.key(.enter)) == [.submit(.chat(text: "hey all"))])
        _ = Self.enter("/filter due:soon", into: &model)
        #expect(model.notice?.contains("bad date \"soon\"") == true, "\(model.notice ?? "")")
        #expect(model.focus == .input)
        #expect(model.input.text == "/filter due:soon")
        #expect(model.filter?.text == "label:bug", "a refused query leaves the filter as it was")
    }

    /// A command refused before anything is sent (a typo in its name, a card that is not there) stays in the input
    /// line to be mended; it was cleared, and a long `/add` had to be typed again.
    @Test func aRefusedCommandStaysInTheInputLine() {
        var model = Self.model()
        for line in ["/mvoe 1 DONE", "/move 99 DONE", "/add --column NOWHERE -- a long title typed with care"] {
            #expect(Self.enter(line, into: &model) == [], "\(line)")
            #expect(model.input.text == line, "\(line): \(model.notice ?? "")")
            #expect(model.focus == .input, "\(line)")
            #expect(model.feed.last?.kind == .error, "\(line)")
            model.input = LineEditor()
        }
        #expect(model.notice?.contains("NOWHERE") == true, "\(model.notice ?? "")")
    }

    /// A terminal without cursor addressing is refused with a pointer to the commands that work there, instead of
    /// getting the alternate screen and cursor movements as garbage.
    @Test func aDumbTerminalIsSentToShowAndWatch() {
        for environment in [["TERM": "dumb"], [:], ["TERM": ""]] {
            let problem = TUIRunner.terminalProblem(environment)
            #expect(problem?.contains("cork show") == true && problem?.contains("cork watch") == true, "\(environment)")
        }
        #expect(TUIRunner.terminalProblem(["TERM": "xterm-256color"]) == nil)
        #expect(TUIRunner.terminalProblem(["TERM": "tmux-256color"]) == nil)
    }
}

extension TUIModelTests {
    /// A long chat line is wrapped in the feed, never cut: its end is on screen, and /lastlog finds it (without
    /// counting its own earlier answers).
    @Test func aLongChatLineIsWrappedAndFoundByLastlog() {
        var model = Self.model(width: 80, height: 40)
        let text = "starts here " + String(repeating: "and goes on ", count: 20) + "until the END"
        var after = Self.testBoard()
        guard let change = after.apply(.chat(text: text), as: "bob") else { return }
        let event = ActivityEvent(activity: change.change.activity, op: .chat(text: text), isOwn: false, board: after.board)
        _ = model.update(.client(.activity(event)))
        #expect(model.feed.last?.text == "<bob> " + text, "the feed keeps the whole line")
        let screen = model.render().lines.joined(separator: "\n")
        #expect(screen.contains("until the END"), "the end of the line is on screen:\n\(screen)")
        _ = Self.enter("/lastlog END", into: &model)
        #expect(model.feed.suffix(2).first?.text == "lastlog END: 1 line")
        _ = Self.enter("/lastlog END", into: &model)
        #expect(model.feed.suffix(2).first?.text == "lastlog END: 1 line", "a second /lastlog finds the chat line, not the first one's answer")
    }
}

extension TUIModelTests {
    /// Carried over a column at its hard limit, the ghost says the drop would be refused before it is tried.
    @Test func aGhostOverAFullColumnSaysItIsFull() {
        var model = Self.model()
        _ = model.update(Self.key(.character(" ")))
        var lines = model.render().lines.joined(separator: "\n")
        #expect(lines.contains("drop with Enter"), "over its own column: \(lines)")
        _ = model.update(Self.key(.right))
        lines = model.render().lines.joined(separator: "\n")
        #expect(lines.contains("DOING is full (1/1): no drop"), "\(lines)")
        #expect(!lines.contains("drop with Enter"))
    }

    /// The conflict prompt names who changed the description first, when the feed saw the change.
    @Test func theConflictPromptNamesWhoChangedTheDescription() {
        var model = Self.model()
        let edit = Op.editCard(EditCard(card: "k1", description: "theirs"))
        let activity = Activity(seq: 9, at: Timestamp(milliseconds: 0), actor: "bob", kind: "card.edit", card: "k1", changes: [:])
        _ = model.update(.client(.activity(ActivityEvent(activity: activity, op: edit, isOwn: false, board: model.board!))))
        let op = PendingOp(board: "main", mut: 4, request: .op(.editCard(EditCard(card: "k1", description: "mine", baseSeq: 3))))
        let reject = OpRejection(
            board: "main", mut: 4, code: .rejected(.conflict), message: "changed",
            current: .object(["seq": .int(9), "description": .string("theirs")]))
        _ = model.update(.client(.rejected(RejectedOp(op: op, reject: reject))))
        #expect(model.feed.last?.text.hasPrefix("bob changed that description first") == true, "\(model.feed.last?.text ?? "")")
    }
}

extension TUIModelTests {
    /// A mention completed with Tab ends in a space; a comma typed next takes that space's place.
    @Test func punctuationAfterACompletedMentionClosesUpTheSpace() {
        var model = Self.model()
        model.focus = .input
        Self.type("thanks @al", into: &model)
        _ = model.update(Self.key(.tab))
        #expect(model.input.text == "thanks @alice ")
        Self.type(", see #1", into: &model)
        #expect(model.input.text == "thanks @alice, see #1")
        // A space typed by hand stays.
        model.input = LineEditor()
        Self.type("@bob , hi", into: &model)
        #expect(model.input.text == "@bob , hi")
    }
}

extension TUIModelTests {
    /// Tab after `/board ` completes board ids, asking the server for them first when the list is not known yet.
    @Test func tabAfterSlashBoardCompletesBoardIds() {
        var model = Self.model()
        model.focus = .input
        Self.type("/board o", into: &model)
        #expect(model.update(Self.key(.tab)) == [.listBoards])
        _ = model.update(.boards([
            BoardSummary(board: "main", name: "Main", role: .owner, seq: 3),
            BoardSummary(board: "ops", name: "Ops", role: .editor, seq: 1),
        ]))
        #expect(model.input.text == "/board ops ")
        // Known now: the next Tab completes at once.
        model.input = LineEditor()
        Self.type("/board o", into: &model)
        #expect(model.update(Self.key(.tab)).isEmpty)
        #expect(model.input.text == "/board ops ")
    }
}

extension TUIModelTests {
    /// Tab completes /set's setting and its values.
    @Test func tabCompletesTheValuesOfSlashSet() {
        var model = Self.model()
        model.focus = .input
        Self.type("/set j", into: &model)
        _ = model.update(Self.key(.tab))
        #expect(model.input.text == "/set joins ")
        Self.type("fo", into: &model)
        _ = model.update(Self.key(.tab))
        #expect(model.input.text == "/set joins fold ")
    }
}

extension TUIModelTests {
    /// The help box and the card detail reach the last column instead of stopping one short beside its rule (`││`).
    @Test func overlaysLeaveNoDoubleRuleAtTheRightEdge() {
        for (width, height) in [(80, 24), (100, 30), (61, 20), (73, 24)] {
            var model = Self.model(width: width, height: height)
            _ = model.update(Self.key(.character("?")))
            let help = model.render().lines
            #expect(!help.contains { $0.contains("││") }, "help at \(width)x\(height):\n\(help.joined(separator: "\n"))")
            _ = model.update(Self.key(.escape))
            _ = model.update(Self.key(.enter))
            let detail = model.render().lines
            #expect(!detail.contains { $0.contains("││") }, "detail at \(width)x\(height):\n\(detail.joined(separator: "\n"))")
        }
    }

    /// A long column header and its scroll count (`↑196`) share the header row: the header is cut with `…`, and
    /// neither runs into the other or into the column's rule.
    @Test func aLongHeaderGivesWayToItsScrollCount() {
        var test = Self.testBoard()
        test.apply(.renameColumn(column: "todo", name: "Everything we still have to do"))
        for n in 0..<40 { test.apply(.addCard(AddCard(card: CardID("x\(n)"), column: "todo", title: "card \(n)"))) }
        var model = Self.model(width: 60, height: 20)
        model.board = test.board
        for _ in 0..<30 { _ = model.update(Self.key(.down)) }
        let header = model.render().lines[0]
        let columns = Array(header)
        let rule = columns.firstIndex(of: "│") ?? columns.count
        let todo = String(columns[..<rule])
        #expect(todo.contains("…"), "the header is cut: \(header)")
        #expect(todo.range(of: #"↑\d+$"#, options: .regularExpression) != nil, "the count ends just before the rule: \(header)")
    }
}

extension TUIModelTests {
    /// A card in a column shows its milestone; a title too long for the column ends in `…`.
    @Test func aCardShowsItsMilestoneAndACutTitleIsMarked() {
        var test = Self.testBoard()
        test.apply(.createMilestone(milestone: "v1", title: "v1.0", description: nil, due: nil))
        test.apply(.editCard(EditCard(card: "k2", milestone: .set("v1"))))
        test.apply(.editCard(EditCard(card: "k1", title: "A title far too long for any column of this narrow terminal")))
        var model = Self.model(width: 80, height: 24)
        model.board = test.board
        let lines = model.render().lines
        #expect(lines.contains { $0.contains("◆v1.0") }, "\(lines.joined(separator: "\n"))")
        #expect(lines[1].contains("#1 A title far") && lines[1].contains("…"), "\(lines[1])")
    }
}

extension TUIModelTests {
    /// The full-screen client's journal is one per server, board and token, named without the token; a second
    /// process on the same one cannot take its lock.
    @Test func theSessionJournalIsOnePerServerBoardAndToken() throws {
        let directory = ConfigDirectory(url: FileManager.default.temporaryDirectory.appendingPathComponent("cork-journal-\(UUID().uuidString)"))
        defer { try? FileManager.default.removeItem(at: directory.url) }
        func target(_ url: String, board: String? = nil) throws -> ConnectionTarget {
            try ConnectionTarget.resolve(option: url, environment: [:], board: board) { () throws(CorkFailure) in nil }
        }
        let fp = "sha256:" + String(repeating: "ab", count: 32)
        let alice = try target("cork://board.example.com:7420/main?token=ck_alice&fp=\(fp)")
        let same = SessionJournal(directory: directory, target: alice)
        #expect(SessionJournal(directory: directory, target: alice).file == same.file)
        #expect(!same.file.lastPathComponent.contains("ck_alice"), "the token is not in the name: \(same.file.lastPathComponent)")
        let bob = try target("cork://board.example.com:7420/main?token=ck_bob&fp=\(fp)")
        #expect(SessionJournal(directory: directory, target: bob).file != same.file)
        let ops = try target("cork://board.example.com:7420/main?token=ck_alice&fp=\(fp)", board: "ops")
        #expect(SessionJournal(directory: directory, target: ops).file != same.file)
        // The lock is per open file description: a second open in this process stands for a second cork.
        #expect(try same.acquire())
        #expect(try !SessionJournal(directory: directory, target: alice).acquire())
    }
}

extension TUIModelTests {
    /// A client that just started shows the board's recent activity and chat above what arrives live, once each,
    /// without counting it unread.
    @Test func aStartingFeedShowsTheRecentBacklog() {
        var model = Self.model()
        let live = Activity(seq: 9, at: Timestamp(milliseconds: 0), actor: "bob", kind: "chat", text: "live now")
        _ = model.update(.client(.activity(ActivityEvent(activity: live, op: .chat(text: "live now"), isOwn: false, board: model.board!))))
        let unread = model.unread
        let history = Self.testBoard().changes.map(\.activity) + [
            Activity(seq: 8, at: Timestamp(milliseconds: 0), actor: "bob", kind: "chat", text: "good morning"), live,
        ]
        #expect(model.update(.backlog("main", HistoryPage(board: "main", activities: history, more: false))).isEmpty)
        let texts = model.feed.map(\.text)
        #expect(texts.first == #"alice added bob to the board as editor"# || texts.first?.contains("bob") == true, "\(texts)")
        #expect(texts.contains("<bob> good morning"))
        #expect(texts.filter { $0 == "<bob> live now" }.count == 1, "the live line is not repeated: \(texts)")
        let marker = texts.firstIndex { $0.contains("latest before you came") }
        let liveIndex = texts.firstIndex(of: "<bob> live now")
        #expect(marker != nil && liveIndex != nil && marker! < liveIndex!, "\(texts)")
        #expect(model.unread == unread, "the backlog is not unread")
        // A backlog for another board (the person switched meanwhile) is ignored.
        let count = model.feed.count
        _ = model.update(.backlog("ops", HistoryPage(board: "ops", activities: history, more: false)))
        #expect(model.feed.count == count)
    }

    /// `g` in the feed goes to its first entry with the pane full, and scrolling back stops there: the pane showed one
    /// line under the title (`scrolled back 19` of 20), then none at all.
    @Test func theFeedScrollsBackToAFullFirstPageAndNoFurther() {
        var model = Self.model(width: 60, height: 30)
        model.feed = []
        for number in 1...20 { model.post(FeedEntry("entry \(number)", kind: .info)) }
        model.focus = .feed
        let rows = model.feedHeight - 1
        let pane: (TUIModel) -> [String] = { model in
            let lines = model.render().lines
            let title = lines.firstIndex { $0.contains("─ feed") } ?? 0
            return lines[(title + 1)...(title + rows)].map { $0.trimmingCharacters(in: .whitespaces) }
        }
        _ = model.update(Self.key(.character("g")))
        #expect(pane(model) == (1...rows).map { "entry \($0)" })
        #expect(model.render().lines.contains { $0.contains("[scrolled back \(20 - rows)]") })
        _ = model.update(Self.key(.character("k")))
        _ = model.update(Self.key(.pageUp))
        #expect(pane(model) == (1...rows).map { "entry \($0)" }, "scrolled past the first entry")
        _ = model.update(Self.key(.character("j")))
        #expect(pane(model) == (2...rows + 1).map { "entry \($0)" })
        _ = model.update(Self.key(.character("G")))
        #expect(pane(model) == (21 - rows...20).map { "entry \($0)" })
        // An entry that wraps shows from its first row at the top.
        model.feed = []
        model.post(FeedEntry("first " + String(repeating: "word ", count: 20), kind: .info))
        for number in 2...20 { model.post(FeedEntry("entry \(number)", kind: .info)) }
        _ = model.update(Self.key(.home))
        #expect(pane(model).first?.hasPrefix("first word") == true, "\(pane(model))")
    }
}

extension TUIModelTests {
    /// Three columns in 80 cells share the width evenly (27, 27, 26 with their borders): the last one did not take
    /// the whole remainder.
    @Test func columnsShareTheScreenWidthEvenly() {
        for width in [80, 81, 100, 101] {
            let model = Self.model(width: width, height: 24)
            let row = Array(model.render().lines[2])
            let borders = row.indices.filter { row[$0] == "│" }
            #expect(borders.count == 3 && borders.last == width - 1, "width \(width): borders at \(borders)")
            guard borders.count == 3 else { continue }
            let widths = [borders[0] + 1, borders[1] - borders[0], borders[2] - borders[1]]
            #expect(widths.max()! - widths.min()! <= 1, "width \(width): columns \(widths)")
        }
    }
}

extension TUIModelTests {
    /// When the oldest entry in view shows only its last rows (after a resize made the pane shorter), its top row
    /// starts with `…`: it read as an indented line of its own.
    @Test func aFeedEntryCutAtThePanesTopSaysSo() {
        var model = Self.model(width: 60, height: 30)
        model.feed = []
        model.post(FeedEntry("alice: " + (1...30).map { "word\($0)" }.joined(separator: " "), kind: .chat))
        for number in 2...4 { model.post(FeedEntry("entry \(number)", kind: .info)) }
        _ = model.update(.resize(width: 60, height: 22))
        let rows = model.feedHeight - 1
        let lines = model.render().lines
        let title = lines.firstIndex { $0.contains("─ feed") } ?? 0
        let pane = lines[(title + 1)...(title + rows)].map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(pane.last == "entry 4", "\(pane)")
        #expect(pane.first?.hasPrefix("… ") == true && pane.first?.contains("word30") == false, "\(pane)")
        #expect(pane.contains { $0.hasSuffix("word30") }, "the chat line's end is on screen: \(pane)")
        #expect(pane.filter { $0.hasPrefix("…") }.count == 1, "\(pane)")
    }
}

extension TUIModelTests {
    /// A card added while someone else added one first (offline, or in a race) is numbered by the server after
    /// theirs: the number shown at first goes to the other card. The feed says so; the change was silent.
    @Test func aCardRenumberedByTheServerIsSaidInTheFeed() {
        var model = Self.model()
        let confirmed = Self.testBoard()
        _ = model.update(.client(.board(BoardUpdate(board: confirmed.board, cause: .snapshot, isConfirmed: true))))
        var shown = confirmed
        shown.apply(.addCard(AddCard(card: "mine", column: "todo", title: "Book the room")))
        let provisional = shown.board.cards["mine"]?.number ?? 0
        _ = model.update(.client(.board(BoardUpdate(board: shown.board, cause: .local, changes: .nothing))))
        let before = model.feed.count
        var server = confirmed
        server.apply(.addCard(AddCard(card: "theirs", column: "todo", title: "Order lunch")), as: "bob")
        server.apply(.addCard(AddCard(card: "mine", column: "todo", title: "Book the room")))
        let number = server.board.cards["mine"]?.number ?? 0
        #expect(number == provisional + 1)
        _ = model.update(.client(.board(BoardUpdate(board: server.board, cause: .deltas, changes: .nothing, isConfirmed: true))))
        let said = model.feed.dropFirst(before).map(\.text)
        #expect(said == ["\"Book the room\" is #\(number) now, not #\(provisional): the server numbered it after cards others added first"], "\(said)")
        // A confirmed board that changes again says nothing more.
        server.apply(.editCard(EditCard(card: "theirs", title: "Order lunch for 8")), as: "bob")
        _ = model.update(.client(.board(BoardUpdate(board: server.board, cause: .deltas, changes: .nothing, isConfirmed: true))))
        #expect(model.feed.count == before + 1)
    }
}
