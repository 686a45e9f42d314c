import Foundation
import BoardClient
import BoardCore
import CorkApp
import TerminalUI
import Testing

/// Keys that arrive together (a held key, or several sent at once over SSH) before the client's update for the first
/// one: each acts on the board as the earlier keys left it, so they move the card the user chose, not its neighbours.
extension TUIModelTests {
    /// #1's detail open on a checklist of four items (one … four), the last one selected.
    static func checklistOfFourOpenAtTheLast() -> (TUIModel, TestBoard) {
        var t = testBoard()
        for (index, text) in ["one", "two", "three", "four"].enumerated() {
            t.apply(.addChecklistItem(card: "k1", item: ChecklistItemID("i\(index)"), text: text, done: false, index: nil))
        }
        var model = model()
        _ = model.update(loaded(t.board))
        _ = model.update(key(.enter))
        _ = model.update(key(.end))
        return (model, t)
    }

    @Test func severalReorderKeysBeforeTheBoardUpdatesMoveTheSelectedCard() throws {
        var t = Self.testBoard()
        t.apply(.addCard(AddCard(card: "k4", column: "todo", title: "Third")))
        t.apply(.addCard(AddCard(card: "k5", column: "todo", title: "Fourth")))
        var model = Self.model()
        _ = model.update(Self.loaded(t.board))
        let selected = model.select(card: "k5")
        #expect(selected)
        // K K K with no update from the client in between, then the ops reach the server in order.
        var effects: [TUIEffect] = []
        for _ in 0..<3 { effects += model.update(Self.key(.character("K"))) }
        Self.applied(effects, to: &t, model: &model)
        let todo = t.board.cards.values.filter { $0.column == "todo" }.sorted { $0.rank < $1.rank }.map(\.id)
        #expect(todo == ["k5", "k1", "k2", "k4"], "\(effects)")
        #expect(model.selectedCard?.id == "k5")
    }

    @Test func twoColumnMovesBeforeTheBoardUpdatesCarryTheCardTwoColumns() throws {
        var t = Self.testBoard()
        t.apply(.setWIPLimit(column: "doing", limit: nil))
        var model = Self.model()
        _ = model.update(Self.loaded(t.board))
        var effects = model.update(Self.key(.character("L")))
        effects += model.update(Self.key(.character("L")))
        Self.applied(effects, to: &t, model: &model)
        #expect(t.board.cards["k1"]?.column == "done", "\(effects)")
        #expect(t.board.cards["k3"]?.column == "doing", "the card already in DOING stays")
        #expect(model.selectedCard?.id == "k1")
    }

    @Test func twoColumnHeaderMovesBeforeTheBoardUpdatesMoveTheSelectedColumn() throws {
        var t = Self.testBoard()
        var model = Self.model()
        _ = model.update(Self.key(.character("l")))
        _ = model.update(Self.key(.character("l")))
        _ = model.update(Self.key(.character("k")))
        #expect(model.onHeader && model.column == 2)
        var effects = model.update(Self.key(.character("H")))
        effects += model.update(Self.key(.character("H")))
        Self.applied(effects, to: &t, model: &model)
        #expect(t.board.columns.map(\.name) == ["DONE", "TODO", "DOING"], "\(effects)")
    }

    /// The client reports each move of a burst in turn: the update for the first `L` shows the card in DOING, and the
    /// selection must still end on the card in DONE, not stay in DOING on a neighbour that the next key would move.
    @Test func theSelectionFollowsABurstOfColumnMovesThroughTheClientsUpdates() throws {
        var t = Self.testBoard()
        t.apply(.setWIPLimit(column: "doing", limit: nil))
        t.apply(.addCard(AddCard(card: "k4", column: "doing", title: "Neighbour")))
        var model = Self.model()
        _ = model.update(Self.loaded(t.board))
        let first = model.update(Self.key(.character("L")))
        let second = model.update(Self.key(.character("L")))
        // The client's updates, one per op, as pending (local) changes.
        for case .submit(let op) in first + second {
            t.apply(op, as: "alice")
            _ = model.update(.client(.board(BoardUpdate(board: t.board, cause: .local, isConfirmed: false))))
        }
        #expect(model.selectedCard?.id == "k1", "selected: \(model.selectedCard?.id.rawValue ?? "none")")
        _ = model.update(.client(.board(BoardUpdate(board: t.board, cause: .deltas, isConfirmed: true))))
        #expect(model.selectedCard?.id == "k1")
        #expect(model.update(Self.key(.character("H"))) == [.submit(.moveCard(card: "k1", column: "doing", placement: .bottom))])
    }

    /// A move the board refuses here (DOING's hard WIP limit is full) leaves the selection where it was: it had gone
    /// to a neighbour in DOING, which the next `H` then moved.
    @Test func aMoveRefusedByAHardLimitLeavesTheSelectionOnTheCard() throws {
        var model = Self.model()
        _ = model.update(Self.key(.character("L")))
        #expect(model.selectedCard?.id == "k1" && model.column == 0, "selected: \(model.selectedCard?.id.rawValue ?? "none")")
        #expect(model.update(Self.key(.character("H"))).isEmpty, "nothing left of TODO")
    }

    @Test func severalChecklistMovesAndTicksBeforeTheBoardUpdatesActOnTheSelectedItem() throws {
        var (model, t) = Self.checklistOfFourOpenAtTheLast()
        var effects: [TUIEffect] = []
        for _ in 0..<3 { effects += model.update(Self.key(.character("K"))) }
        // Space twice: ticked, then unticked again.
        effects += model.update(Self.key(.character(" ")))
        effects += model.update(Self.key(.character(" ")))
        Self.applied(effects, to: &t, model: &model)
        let items = try #require(t.board.cards["k1"]?.checklist)
        #expect(items.map(\.text) == ["four", "one", "two", "three"], "\(effects)")
        #expect(items.map(\.done) == [false, false, false, false])
    }
}

/// A column added after the last one becomes the done column: the first Enter says what that does to the cards in
/// today's last column and keeps the line; Enter again adds it.
extension TUIModelTests {
    @Test func aColumnAddedLastIsAddedOnTheSecondEnterAfterAWarning() throws {
        var t = Self.testBoard()
        t.apply(.moveCard(card: "k2", column: "done", placement: .bottom))
        var model = Self.model()
        _ = model.update(Self.loaded(t.board))
        let first = Self.enter("/column add QA", into: &model)
        #expect(!first.contains { if case .submit = $0 { true } else { false } }, "\(first)")
        #expect(model.notice?.contains("QA would come after DONE and be the done column: its 1 card would count as not done") == true,
            "\(model.notice ?? "")")
        #expect(model.input.text == "/column add QA")
        let second = model.update(Self.key(.enter))
        guard case .submit(.addColumn(_, let name, let index))? = second.first else {
            Issue.record("\(second)")
            return
        }
        #expect(name == "QA" && index == nil)
        Self.applied(second, to: &t, model: &model)
        // With nothing in the last column (QA now), no warning.
        let next = Self.enter("/column add Review", into: &model)
        #expect(!next.isEmpty && model.notice?.contains("done column") != true, "\(next)")
    }
}

/// A column's `↓N more` line in a small window is a line of its own: it had been written over a card's second row,
/// leaving that row's end after it (` ↓3 more2-02 BO`).
extension TUIModelTests {
    @Test(arguments: [(20, 8), (25, 9), (30, 9), (30, 10)])
    func theMoreLineLeavesNothingOfACardAfterIt(width: Int, height: Int) throws {
        var t = Self.testBoard()
        for n in 0..<6 {
            t.apply(.addCard(AddCard(card: CardID("m\(n)"), column: "todo", title: "Card \(n) with a long title", due: Day(year: 2026, month: 12, day: 2))))
        }
        var model = Self.model()
        _ = model.update(.resize(width: width, height: height))
        _ = model.update(Self.loaded(t.board))
        let lines = model.render().lines
        let more = try #require(lines.first { $0.contains("↓") && $0.contains("more") }, "\(lines.joined(separator: "\n"))")
        // In the first column, the line is `↓N more` and blanks up to the column's border.
        let first = more.prefix { $0 != "│" }
        #expect(first.trimmingCharacters(in: .whitespaces).range(of: #"^↓\d+ more$"#, options: .regularExpression) != nil, "\(more)")
    }
}

/// `/labels` manages the board's labels from the full-screen client, and `/board remind` sets the reminder lead time.
extension TUIModelTests {
    @Test func slashLabelsListsRecoloursRenamesAndRemoves() throws {
        var model = Self.model()
        _ = Self.enter("/labels", into: &model)
        #expect(model.feed.suffix(2).map(\.text) == ["labels on main (/labels color LABEL COLOR recolours one):", "  bug #d73a4a · 1 card"])
        #expect(Self.enter("/labels color bug blue", into: &model) == [.submit(.updateLabel(label: "bug", name: nil, color: HexColor("#1d76db")!))])
        #expect(Self.enter("/labels color bug #00FF00", into: &model) == [.submit(.updateLabel(label: "bug", name: nil, color: HexColor("#00ff00")!))])
        #expect(Self.enter("/labels rename BUG \"a defect\"", into: &model) == [.submit(.updateLabel(label: "bug", name: "a defect", color: nil))])
        #expect(Self.enter("/labels remove bug", into: &model) == [.submit(.deleteLabel(label: "bug"))])
        guard case .submit(.createLabel(_, let name, let color))? = Self.enter("/labels add infra green", into: &model).first else {
            Issue.record("no label.create")
            return
        }
        #expect(name == "infra" && color == HexColor("#0e8a16")!)
        #expect(Self.enter("/labels color bug greenish", into: &model).isEmpty)
        #expect(model.notice?.contains("greenish is not a colour") == true, "\(model.notice ?? "")")
        #expect(Self.enter("/board remind 48", into: &model) == [.submit(.setRemindHours(hours: 48))])
        #expect(Self.enter("/board remind default", into: &model) == [.submit(.setRemindHours(hours: nil))])
        // Without a value it says what the board does now; an editor's change is refused here, the line kept.
        #expect(Self.enter("/board remind", into: &model).isEmpty)
        #expect(model.notice == "board main reminds a day before a card's due day (the server's default); /board remind HOURS|default changes it (owners)")
        model.user = "bob"
        #expect(Self.enter("/board remind 12", into: &model).isEmpty)
        #expect(model.notice?.hasPrefix("only the board's owners set when reminders go out") == true, "\(model.notice ?? "")")
        #expect(model.input.text == "/board remind 12")
    }
}

extension TUIModelTests {
    /// `/close` of a closed card (and `/reopen` of an open one) is said, not sent for a silent no-op.
    @Test func closingAClosedCardSaysSoAndSendsNothing() {
        var t = Self.testBoard()
        t.apply(.closeCard(card: "k2"))
        var model = Self.model()
        _ = model.update(Self.loaded(t.board))
        #expect(Self.enter("/close #2", into: &model).isEmpty)
        #expect(model.notice == "#2 is closed already: no change", "\(model.notice ?? "")")
        #expect(Self.enter("/reopen #1", into: &model).isEmpty)
        #expect(model.notice == "#1 is open already: no change", "\(model.notice ?? "")")
        #expect(Self.enter("/reopen #2", into: &model) == [.submit(.reopenCard(card: "k2"))])
    }
}

/// The client's updates and the keys come through one queue from two tasks, so an update made for an earlier op can
/// arrive after a later key: the ops the model showed since are applied again on it, and the next key acts on the
/// board as the user sees it.
extension TUIModelTests {
    @Test func anUpdateMadeBeforeTheLatestKeysKeepsTheirOpsShown() throws {
        var (model, t) = Self.checklistOfFourOpenAtTheLast()
        // The client as the runner drives it: each submit gets the next mut, and makes an update of its own view.
        var client = t
        var mut: UInt64 = 0
        var updates: [BoardUpdate] = []
        var sent: [Op] = []
        func submit(_ effects: [TUIEffect]) {
            for case .submit(let op) in effects {
                mut += 1
                model.submitted(op, mut: mut)
                client.apply(op, as: "alice")
                sent.append(op)
                updates.append(BoardUpdate(board: client.board, cause: .local, throughMut: mut))
            }
        }
        // K: its two ops; the update for the first (the item removed, not yet added back) comes after the next K.
        submit(model.update(Self.key(.character("K"))))
        _ = model.update(.client(.board(updates[0])))
        submit(model.update(Self.key(.character("K"))))
        for update in updates.dropFirst() { _ = model.update(.client(.board(update))) }
        submit(model.update(Self.key(.character("K"))))
        for update in updates.suffix(2) { _ = model.update(.client(.board(update))) }
        let items = try #require(client.board.cards["k1"]?.checklist.map(\.text))
        #expect(items == ["four", "one", "two", "three"], "\(items) after \(sent)")
        #expect(model.board?.cards["k1"]?.checklist.map(\.text) == items, "the model shows what the client does")
    }
}

extension TUIModelTests {
    /// A notice the status line cuts short is in the feed whole; a short one is not repeated there.
    @Test func aNoticeTooLongForTheStatusLineIsAlsoAFeedLine() {
        var model = Self.model(width: 60)
        let before = model.feed.count
        model.notice = "short"
        #expect(model.feed.count == before)
        let long = "#11 was moved to DOING, where you hold it, while you carried it: Enter drops it at your place, Esc where it went"
        model.notice = long
        #expect(model.feed.last?.text == long)
        model.notice = long
        #expect(model.feed.filter { $0.text == long }.count == 1, "said once")
    }
}
