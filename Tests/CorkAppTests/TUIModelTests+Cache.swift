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
