import BoardClient
import BoardCore
@testable import CorkApp
import TerminalUI
import Testing

/// The shown cards are cached per change of the board, the filter, the user and the day (what a key press on a
/// 1,000-card board must not recompute): every such change shows its new cards, and nothing else rebuilds them.
extension TUIModelTests {
    static func ids(_ model: TUIModel, _ column: Int) -> [CardID] { model.visibleCards(column).map(\.id) }

    /// After a key press the cache holds the columns for the model's current version, and the next key reads it.
    @Test func aKeyPressLeavesTheShownCardsCached() {
        var model = Self.model()
        _ = model.update(Self.key(.character("j")))
        #expect(model.visible.version == model.visibleVersion)
        #expect(model.visible.cards["todo"]?.map(\.id) == ["k1", "k2"])
        #expect(model.visible.totals == ["todo": 2, "doing": 1])
        let version = model.visibleVersion
        _ = model.update(Self.key(.character("k")))
        _ = model.update(Self.key(.character("l")))
        #expect(model.visibleVersion == version, "moving the selection does not invalidate the cache")
    }

    /// A board update from the client, an added, moved or archived card, shows at once.
    @Test func aChangedBoardShowsItsNewCards() {
        var t = Self.testBoard()
        var model = Self.model()
        _ = model.update(Self.key(.character("j")))
        t.apply(.addCard(AddCard(card: "k4", column: "todo", title: "New one")))
        _ = model.update(Self.loaded(t.board))
        #expect(Self.ids(model, 0) == ["k1", "k2", "k4"])
        #expect(model.render().lines.contains { $0.contains("#4 New one") })
        t.apply(.moveCard(card: "k1", column: "done", placement: .bottom))
        _ = model.update(Self.loaded(t.board))
        #expect(Self.ids(model, 0) == ["k2", "k4"])
        #expect(Self.ids(model, 2) == ["k1"])
        t.apply(.archiveCard(card: "k2"))
        _ = model.update(Self.loaded(t.board))
        #expect(Self.ids(model, 0) == ["k4"])
        #expect(model.render().lines[0].contains("TODO 1"))
    }

    /// The board changed in place, with no new seq (as a test or a pending op may), still shows its new cards:
    /// the cache is keyed by every change of `board`, not by its seq.
    @Test func aBoardChangedInPlaceShowsItsNewCards() {
        var model = Self.model()
        _ = model.update(Self.key(.character("j")))
        let seq = model.board?.seq
        model.board?.cards["k2"]?.column = "done"
        #expect(model.board?.seq == seq)
        #expect(Self.ids(model, 0) == ["k1"], "before the next update")
        _ = model.update(Self.key(.character("k")))
        #expect(Self.ids(model, 0) == ["k1"])
        #expect(Self.ids(model, 2) == ["k2"])
        #expect(model.render().lines[0].contains("TODO 1"))
    }

    /// Setting, changing and clearing the filter shows the cards it lets through.
    @Test func aChangedFilterShowsItsCards() {
        var model = Self.model()
        _ = model.update(Self.key(.character("j")))
        _ = Self.enter("/filter label:bug", into: &model)
        #expect(Self.ids(model, 0) == ["k1"])
        #expect(model.render().lines[0].contains("TODO 2 (1 shown)"))
        _ = Self.enter("/filter \"docs\"", into: &model)
        #expect(Self.ids(model, 0) == ["k2"])
        _ = Self.enter("/filter", into: &model)
        #expect(Self.ids(model, 0) == ["k1", "k2"])
    }

    /// The query's context is part of the key: `@me` follows the user, `due:overdue` the day.
    @Test func theUserAndTheDayAreInTheKey() {
        var t = Self.testBoard()
        t.apply(.assign(card: "k1", user: "alice"))
        t.apply(.assign(card: "k2", user: "bob"))
        var model = Self.model()
        _ = model.update(Self.loaded(t.board))
        _ = Self.enter("/filter @me", into: &model)
        #expect(Self.ids(model, 0) == ["k1"])
        model.user = "bob"
        _ = model.update(.tick)
        #expect(Self.ids(model, 0) == ["k2"])
        _ = Self.enter("/filter due:overdue", into: &model)
        #expect(Self.ids(model, 0) == ["k1"])
        model.today = Day(year: 2026, month: 2, day: 1)!
        _ = model.update(.tick)
        #expect(Self.ids(model, 0) == [])
    }

    /// PgDn and PgUp scroll a long column a screenful at a time: the selected card is drawn, the cards above it
    /// are counted in the header (`↑N`) and those below at the bottom (`↓N more`).
    @Test func pagingScrollsTheColumn() throws {
        var t = Self.testBoard()
        for n in 3...60 { t.apply(.addCard(AddCard(card: CardID("p\(n)"), column: "todo", title: "Card \(n)"))) }
        var model = Self.model(width: 100, height: 30)
        _ = model.update(Self.loaded(t.board))
        let page = model.cardsPerPage
        let count = model.visibleCards(0).count
        #expect(count == 60)
        _ = model.update(Self.key(.pageDown))
        _ = model.update(Self.key(.pageDown))
        #expect(model.row == 2 * page)
        var lines = model.render().lines
        let selected = try #require(model.selectedCard)
        #expect(lines.contains { $0.contains("#\(selected.number) Card") })
        let above = 2 * page - page + 1
        #expect(lines[0].contains("↑\(above)"))
        #expect(lines[model.boardHeight - 1].contains("↓\(count - above - page) more"))
        _ = model.update(Self.key(.pageUp))
        _ = model.update(Self.key(.pageUp))
        #expect(model.row == 0)
        lines = model.render().lines
        #expect(!lines[0].contains("↑"))
        #expect(lines.contains { $0.contains("#1 Fix login") })
    }
}

/// Updates that say which cards changed (every `.deltas` and `.local` update from the client) change only those
/// cards in the cache: after each of a few hundred random changes, under several filters, the cached columns and
/// counts equal what a fresh pass over the whole board gives, and the cache was not rebuilt for a card change.
extension TUIModelTests {
    /// The shown cards and counts of every column computed from scratch, as `VisibleCards` must hold them.
    static func fresh(_ model: TUIModel) -> [[CardID]] {
        guard let board = model.board else { return [] }
        let context = QueryContext(today: model.today, me: model.user)
        return board.columns.map { column in
            board.cards(in: column.id).filter { model.filter?.query.matches($0, in: board, context: context) ?? true }.map(\.id)
        }
    }

    @Test(arguments: ["", "label:bug", "column:qa", "\"card 1\"", "-column:todo label:bug"])
    func onlyTheChangedCardsMoveInTheCache(filter: String) {
        var t = Self.testBoard()
        t.apply(.addColumn(column: "review", name: "Review", index: nil))
        var model = Self.model()
        _ = model.update(Self.loaded(t.board))
        if !filter.isEmpty { _ = Self.enter("/filter \(filter)", into: &model) }
        var random = UInt64(0x9E37_79B9_7F4A_7C15)
        func next(_ bound: Int) -> Int {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((random >> 33) % UInt64(bound))
        }
        let columns: [ColumnID] = ["todo", "doing", "done", "review"]
        var incremental = 0
        for step in 0..<300 {
            let cards = Array(t.board.cards.keys).sorted()
            let card = cards.isEmpty ? nil : cards[next(cards.count)]
            let op: Op
            switch (next(9), card) {
            case (0, _), (_, nil):
                op = .addCard(AddCard(card: CardID("n\(step)"), column: columns[next(4)], title: "card \(step)", labels: next(2) == 0 ? ["bug"] : []))
            case (1, let card?), (2, let card?):
                op = .moveCard(card: card, column: columns[next(4)], placement: next(2) == 0 ? .top : .bottom)
            case (3, let card?):
                op = .editCard(EditCard(card: card, title: "card \(next(20))"))
            case (4, let card?):
                op = t.board.cards[card]?.archived == true ? .restoreCard(card: card) : .archiveCard(card: card)
            case (5, let card?):
                op = t.board.cards[card]?.labels.contains("bug") == true ? .removeLabel(card: card, label: "bug") : .addLabel(card: card, label: "bug")
            case (6, let card?):
                op = t.board.cards[card]?.closed == true ? .reopenCard(card: card) : .closeCard(card: card)
            case (7, _):
                op = .renameColumn(column: "review", name: next(2) == 0 ? "Review" : "QA")
            default:
                op = .setWIPLimit(column: "doing", limit: next(2) == 0 ? nil : WIPLimit(limit: 50, hard: false))
            }
            // Random ops may be refused (a move of an archived card): those change nothing and are skipped.
            let before = t.board
            guard case .success(let change) = before.applying(op, context: t.context("alice")) else { continue }
            t.board = change.board
            // A mark no rebuild keeps: still there afterwards, the cache was changed in place.
            model.visible.totals["untouched"] = 1
            _ = model.update(.client(.board(BoardUpdate(
                board: change.board, cause: .deltas, changes: BoardChanges.of(op, on: before), changedByOthers: []))))
            #expect(model.visible.version == model.visibleVersion, "step \(step): the cache is current")
            if model.visible.totals.removeValue(forKey: "untouched") != nil { incremental += 1 }
            let expected = Self.fresh(model)
            for index in columns.indices {
                #expect(Self.ids(model, index) == expected[index], "step \(step), \(op.kind), column \(columns[index])")
                #expect(model.cardCount(index) == t.board.count(in: columns[index]), "step \(step), \(op.kind): count of \(columns[index])")
            }
        }
        #expect(incremental > 200, "most updates changed the cache in place (\(incremental) of 300)")
    }
}
