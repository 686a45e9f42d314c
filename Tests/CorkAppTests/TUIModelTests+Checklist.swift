import BoardClient
import BoardCore
import CorkApp
import TerminalUI
import Testing

/// Checklists in the card detail: add, tick with Space, reorder, remove; progress on the card in the column.
extension TUIModelTests {
    @Test func theCardDetailAddsTicksReordersAndRemovesChecklistItems() throws {
        var t = Self.testBoard()
        var model = Self.model()
        _ = model.update(Self.key(.enter))
        #expect(model.render().lines.contains { $0.contains("checklist (empty)") })

        // a: a new item, typed in the input line; the detail stays open.
        for text in ["tests", "docs", "release notes"] {
            _ = model.update(Self.key(.character("a")))
            #expect(model.focus == .input)
            Self.type(text, into: &model)
            let added = model.update(Self.key(.enter))
            guard case .submit(.addChecklistItem(let card, _, let typed, let done, let index))? = added.first,
                added.count == 1
            else {
                Issue.record("\(added)")
                return
            }
            #expect(card == "k1" && typed == text && !done && index == nil)
            Self.applied(added, to: &t, model: &model)
        }
        #expect(model.overlay == .detail("k1"))
        #expect(model.focus == .board)
        let items = try #require(t.board.cards["k1"]?.checklist)
        #expect(items.map(\.text) == ["tests", "docs", "release notes"])

        // Space ticks the selected item (j selects the next).
        _ = model.update(Self.key(.home))
        let tick = model.update(Self.key(.character(" ")))
        #expect(tick == [.submit(.editChecklistItem(card: "k1", item: items[0].id, text: nil, done: true))])
        Self.applied(tick, to: &t, model: &model)
        _ = model.update(Self.key(.character("j")))
        Self.applied(model.update(Self.key(.character(" "))), to: &t, model: &model)
        var lines = model.render().lines
        #expect(lines.contains { $0.contains("checklist ▰▰▱ 2/3") })
        #expect(lines.contains { $0.contains("▸ [x] docs") })

        // J moves it down: removed and added again with its id and tick, one place lower.
        let moved = model.update(Self.key(.character("J")))
        #expect(moved == [
            .submit(.removeChecklistItem(card: "k1", item: items[1].id)),
            .submit(.addChecklistItem(card: "k1", item: items[1].id, text: "docs", done: true, index: 2)),
        ])
        Self.applied(moved, to: &t, model: &model)
        #expect(t.board.cards["k1"]?.checklist.map(\.text) == ["tests", "release notes", "docs"])
        #expect(model.overlayRow == 2)
        // K at the top does nothing.
        _ = model.update(Self.key(.character("g")))
        #expect(model.update(Self.key(.character("K"))).isEmpty)

        // x removes the selected item.
        let removed = model.update(Self.key(.character("x")))
        #expect(removed == [.submit(.removeChecklistItem(card: "k1", item: items[0].id))])
        Self.applied(removed, to: &t, model: &model)
        #expect(t.board.cards["k1"]?.checklist.map(\.text) == ["release notes", "docs"])

        // The card in its column shows the progress.
        _ = model.update(Self.key(.escape))
        lines = model.render().lines
        #expect(lines[2].contains("▰▱ 1/2"), "\(lines[2])")
    }

    @Test func checklistProgressBarsHaveAtMostFiveCells() throws {
        var card = try #require(Self.board().cards["k2"])
        #expect(TUIModel.checklistProgress(card) == nil)
        card.checklist = (0..<3).map { ChecklistItem(id: ChecklistItemID("i\($0)"), text: "x", done: $0 < 2) }
        #expect(TUIModel.checklistProgress(card) == "▰▰▱ 2/3")
        card.checklist = (0..<10).map { ChecklistItem(id: ChecklistItemID("i\($0)"), text: "x", done: $0 < 9) }
        #expect(TUIModel.checklistProgress(card) == "▰▰▰▰▱ 9/10")
        card.checklist = (0..<10).map { ChecklistItem(id: ChecklistItemID("i\($0)"), text: "x", done: true) }
        #expect(TUIModel.checklistProgress(card) == "▰▰▰▰▰ 10/10")
    }

    @Test func aViewerCannotTickOrAddChecklistItems() {
        var t = Self.testBoard()
        t.apply(.setMember(user: "carol", role: .viewer, name: nil))
        t.apply(.addChecklistItem(card: "k1", item: "i1", text: "tests", done: false, index: nil))
        var model = Self.model()
        model.board = t.board
        model.user = "carol"
        _ = model.update(Self.key(.enter))
        #expect(model.update(Self.key(.character(" "))).isEmpty)
        #expect(model.notice == "you are a viewer here: viewers cannot change the board")
        #expect(model.update(Self.key(.character("a"))).isEmpty)
        #expect(model.focus == .board)
    }
}
