import BoardClient
import BoardCore
import BoardWire
import CorkApp
import TerminalUI
import Testing

/// Smaller things a person at the keyboard meets: pasting, limits while typing, markers without colour.
extension TUIModelTests {
    @Test func pastedLinesAreJoinedWithASpace() {
        var model = Self.model()
        model.focus = .input
        _ = model.update(Self.key(.paste("first line\nsecond line\n\nthird\twith a tab\n")))
        #expect(model.input.text == "first line second line third with a tab")
        // Pasted on the board, the text goes to the input line the same way.
        var board = Self.model()
        _ = board.update(Self.key(.paste("a\nb")))
        #expect(board.focus == .input && board.input.text == "a b")
    }

    /// Overdue is said in text, not only in red: with `NO_COLOR` (or colour blindness) the mark is still there.
    @Test func overdueIsMarkedWithoutColour() throws {
        var model = Self.model()
        let lines = model.render().lines
        // #1 was due 2026-03-01 (today is 2026-03-10); nothing is due on #2.
        #expect(lines[2].contains("!2026-03-01"), "\(lines[2])")
        var t = Self.testBoard()
        t.apply(.editCard(EditCard(card: "k2", due: .set(Day(year: 2026, month: 3, day: 20)!))))
        t.apply(.editCard(EditCard(card: "k3", due: .set(Day(year: 2026, month: 3, day: 1)!))))
        t.apply(.closeCard(card: "k3"))
        model.board = t.board
        let later = model.render().lines
        #expect(later[4].contains("2026-03-20") && !later[4].contains("!2026-03-20"), "\(later[4])")
        // A closed card is not overdue.
        #expect(later[2].contains("2026-03-01") && later.filter { $0.contains("!2026-03-01") }.count == 1)
        // With colour off, the terminal gets the mark and no colour.
        let plain = Renderer(colorMode: .none).render(from: nil, to: model.render())
        #expect(plain.contains("!2026-03-01") && !plain.contains("[31m"))
        // The card detail says it in words.
        _ = model.update(Self.key(.enter))
        #expect(model.render().lines.contains { $0.contains("due 2026-03-01 (overdue)") })
    }

    /// A title over the limit is caught while typing (a count appears near it, then how far over), Enter keeps the
    /// text, and a title the server refuses comes back to the input line.
    @Test func limitsAreCheckedWhileTypingAndTheTextIsKeptOnRefusal() {
        var model = Self.model()
        _ = model.update(Self.key(.character("n")))
        // The title limit is 200 characters (the server's, from welcome.limits).
        Self.type(String(repeating: "a", count: 179), into: &model)
        #expect(!model.render().lines[model.height - 1].contains("left"))
        Self.type("b", into: &model)
        #expect(model.render().lines[model.height - 1].hasSuffix("20 left"))
        Self.type(String(repeating: "c", count: 21), into: &model)
        let line = model.render().lines[model.height - 1]
        #expect(line.hasSuffix("1 over"), "\(line)")
        #expect(model.render().spans(model.height - 1).last?.style.foreground == .ansi(.red))
        // Enter does not send it, and nothing typed is lost.
        let typed = model.input.text
        #expect(model.update(Self.key(.enter)).isEmpty)
        #expect(model.input.text == typed && model.purpose == .newCard("todo") && model.focus == .input)
        #expect(model.notice == "the title is 201 characters, at most 200: 1 too many")
        _ = model.update(Self.key(.backspace))
        guard case .submit(.addCard(let add))? = model.update(Self.key(.enter)).first else {
            Issue.record("no card added")
            return
        }
        #expect(model.input.text.isEmpty)

        // The server refuses it anyway (here: DOING's hard WIP limit): the title comes back to the input line.
        let op = PendingOp(board: "main", mut: 9, request: .op(.addCard(add)))
        let reject = OpRejection(board: "main", mut: 9, code: .rejected(.wipLimit), message: "TODO is at its WIP limit of 2")
        _ = model.update(.client(.rejected(RejectedOp(op: op, reject: reject))))
        #expect(model.input.text == add.title && model.purpose == .newCard("todo") && model.focus == .input)
        #expect(model.notice?.contains("TODO is at its WIP limit of 2") == true)

        // A refused chat line comes back too, unless the user is typing something else by then.
        var chat = Self.model()
        let refusedChat = RejectedOp(
            op: PendingOp(board: "main", mut: 10, request: .op(.chat(text: "hello"))),
            reject: OpRejection(board: "main", mut: 10, code: .rateLimited, message: "slow down"))
        chat.focus = .input
        Self.type("busy", into: &chat)
        _ = chat.update(.client(.rejected(refusedChat)))
        #expect(chat.input.text == "busy")
        chat.input = LineEditor()
        _ = chat.update(.client(.rejected(refusedChat)))
        #expect(chat.input.text == "hello" && chat.purpose == .chat)
    }
}

extension TUIModelTests {
    /// A card's second row in a narrow column: each part whole or left out, and `…` when some are (at 80 columns it
    /// showed `▰ 1/` for `▰▱▱ 1/3`, and the assignee not at all, with nothing to say so).
    @Test func aCardsSecondRowShowsItsPartsWholeOrSaysSomeAreLeftOut() throws {
        var model = Self.model(width: 80)
        var t = Self.testBoard()
        t.apply(.createLabel(label: "l1", name: "infrastructure", color: try #require(HexColor("#0075ca"))))
        t.apply(.createLabel(label: "l2", name: "security-review", color: try #require(HexColor("#d73a4a"))))
        t.apply(.addLabel(card: "k1", label: "l1"))
        t.apply(.addLabel(card: "k1", label: "l2"))
        for (item, done) in [("i1", true), ("i2", false), ("i3", false)] {
            t.apply(.addChecklistItem(card: "k1", item: ChecklistItemID(item), text: item, done: done, index: nil))
        }
        model.board = t.board
        let row = model.render().lines[2]
        let cell = String(row.prefix { $0 != "│" }).trimmingCharacters(in: .whitespaces)
        let whole: Set<String> = ["bug", "infrastructure", "security-review", "!2026-03-01", "▰▱▱", "1/3", "…"]
        #expect(cell.split(separator: " ").allSatisfy { whole.contains(String($0)) }, "a part is cut: \(cell)")
        #expect(cell.hasSuffix("…"), "parts are left out without a mark: \(cell)")
        #expect(cell.hasPrefix("!2026-03-01 "), "the overdue date gave way to labels: \(cell)")
        // Wide enough, every part shows and nothing is marked.
        var wide = Self.model(width: 200)
        wide.board = t.board
        let full = String(wide.render().lines[2].prefix { $0 != "│" })
        #expect(full.contains("security-review") && full.contains("▰▱▱ 1/3") && !full.contains("…"), "\(full)")
    }
}
