import BoardClient
import BoardCore
import CorkApp
import TerminalUI
import Testing

/// Columns from the full-screen client: keys on a selected column header, and `/column` commands.
extension TUIModelTests {
    /// Applies the ops among `effects` to `t` as `actor` (each must be accepted) and shows the result in `model`.
    static func applied(_ effects: [TUIEffect], to t: inout TestBoard, as actor: UserID = "alice", model: inout TUIModel) {
        for case .submit(let op) in effects { t.apply(op, as: actor) }
        _ = model.update(loaded(t.board))
    }

    @Test func upFromTheFirstCardSelectsTheHeaderWhereColumnKeysApply() {
        var t = Self.testBoard()
        var model = Self.model()
        _ = model.update(Self.key(.character("k")))
        #expect(model.onHeader)
        #expect(model.selectedCard == nil)
        #expect(model.statusText.contains("e rename"))
        // The header is drawn in reverse; no card is.
        #expect(model.render()[1, 0].style.attributes.contains(.reverse))

        // e renames, prefilled with the name.
        _ = model.update(Self.key(.character("e")))
        #expect(model.input.text == "TODO")
        _ = model.update(.key(.ctrl("u")))
        Self.type("Backlog", into: &model)
        let renamed = model.update(Self.key(.enter))
        #expect(renamed == [.submit(.renameColumn(column: "todo", name: "Backlog"))])
        Self.applied(renamed, to: &t, model: &model)
        #expect(model.render().lines[0].contains("Backlog 2"))

        // a adds a column to the right of the selected one, its id a slug of its name.
        _ = model.update(Self.key(.character("a")))
        Self.type("In review", into: &model)
        let added = model.update(Self.key(.enter))
        #expect(added == [.submit(.addColumn(column: "in-review", name: "In review", index: 1))])
        Self.applied(added, to: &t, model: &model)
        #expect(model.columns.map(\.name) == ["Backlog", "In review", "DOING", "DONE"])

        // L moves the selected column right, and the selection follows it.
        #expect(model.onHeader && model.column == 1)
        let moved = model.update(Self.key(.character("L")))
        #expect(moved == [.submit(.moveColumn(column: "in-review", index: 2))])
        Self.applied(moved, to: &t, model: &model)
        #expect(model.columns.map(\.name) == ["Backlog", "DOING", "In review", "DONE"])
        #expect(model.column == 2)

        // w sets a WIP limit: `N hard`, `N`, or `none`.
        _ = model.update(Self.key(.character("w")))
        Self.type("2 hard", into: &model)
        let wip = model.update(Self.key(.enter))
        #expect(wip == [.submit(.setWIPLimit(column: "in-review", limit: WIPLimit(limit: 2, hard: true)))])
        Self.applied(wip, to: &t, model: &model)
        #expect(model.render().lines[0].contains("In review 0/2"))
        // Again: the line starts empty, with the limit in the prompt, so `1` is 1, not 21; Enter alone changes nothing.
        _ = model.update(Self.key(.character("w")))
        #expect(model.input.text == "")
        #expect(model.render().lines.contains { $0.contains("WIP limit of In review, now 2 hard (N [hard] | none):") })
        Self.type("1", into: &model)
        #expect(model.update(Self.key(.enter)) == [.submit(.setWIPLimit(column: "in-review", limit: WIPLimit(limit: 1, hard: false)))])
        _ = model.update(Self.key(.character("w")))
        #expect(model.update(Self.key(.enter)) == [])
        // A value out of range is refused here, with the range, and stays in the line to mend.
        _ = model.update(Self.key(.character("w")))
        Self.type("1001", into: &model)
        #expect(model.update(Self.key(.enter)) == [])
        #expect(model.notice == "a WIP limit is N (1–1000), N hard, N soft or none")
        #expect(model.input.text == "1001" && model.focus == .input)
        _ = model.update(Self.key(.escape))

        // x removes an empty column; a column with cards says why not, and sends nothing.
        #expect(model.update(Self.key(.character("x"))) == [.submit(.removeColumn(column: "in-review"))])
        _ = model.update(Self.key(.character("h")))
        #expect(model.update(Self.key(.character("x"))).isEmpty)
        #expect(model.notice == "DOING holds 1 card (archived ones count): move them first")
        #expect(model.feed.last?.text == "DOING holds 1 card (archived ones count): move them first", "a refusal goes to the feed too")

        // j goes back down to the first card.
        _ = model.update(Self.key(.character("j")))
        #expect(!model.onHeader)
        #expect(model.selectedCard?.id == "k3")
    }

    @Test func columnCommandsAddRenameMoveRemoveAndSetWIPLimits() {
        var model = Self.model()
        #expect(Self.enter("/column add QA", into: &model) == [.submit(.addColumn(column: "qa", name: "QA", index: nil))])
        #expect(Self.enter("/column rename doing In progress", into: &model)
            == [.submit(.renameColumn(column: "doing", name: "In progress"))])
        #expect(Self.enter("/column move DONE 1", into: &model) == [.submit(.moveColumn(column: "done", index: 0))])
        // The move of DONE shows at once (DONE, TODO, DOING), so TODO's right is index 2.
        #expect(Self.enter("/column move todo right", into: &model) == [.submit(.moveColumn(column: "todo", index: 2))])
        #expect(Self.enter("/column wip doing 3", into: &model)
            == [.submit(.setWIPLimit(column: "doing", limit: WIPLimit(limit: 3, hard: false)))])
        #expect(Self.enter("/column wip doing none", into: &model) == [.submit(.setWIPLimit(column: "doing", limit: nil))])
        #expect(Self.enter("/column remove done", into: &model) == [.submit(.removeColumn(column: "done"))])
        // Mistakes say what to type, and send nothing.
        #expect(Self.enter("/column wip doing lots", into: &model).isEmpty)
        #expect(model.notice == "a WIP limit is N (1–1000), N hard, N soft or none")
        #expect(Self.enter("/column remove nowhere", into: &model).isEmpty)
        #expect(model.notice?.contains("no column \"nowhere\"") == true)
        #expect(Self.enter("/column remove todo", into: &model).isEmpty)
        #expect(model.notice?.contains("TODO holds 2 cards") == true)
    }

    @Test func columnCommandsComplete() {
        let model = Self.model()
        #expect(Self.completing("/col", in: model).input.text == "/column ")
        #expect((1...2).map { Self.completing("/column re", tabs: $0, in: model).input.text }
            == ["/column rename", "/column remove"])
        #expect((1...2).map { Self.completing("/column wip DO", tabs: $0, in: model).input.text }
            == ["/column wip DOING", "/column wip DONE"])
        #expect(Self.completing("/column wip DOING 2 h", in: model).input.text == "/column wip DOING 2 hard ")
        #expect(Self.completing("/column move TODO ri", in: model).input.text == "/column move TODO right ")
    }
}
