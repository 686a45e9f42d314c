import BoardClient
import BoardCore
import BoardWire
import CorkApp
import TerminalUI
import Foundation
import Testing

/// The card detail in a small terminal (60×15, as in a tmux split): what does not fit is counted, and the selected
/// checklist item is always on screen.
extension TUIModelTests {
    /// Board main with #1 holding a three-line description, `items` checklist items (`step 1`…), two comments and a
    /// history of `changes` renames by bob; the detail of #1 open at `width`×`height` with its history loaded.
    static func detailOpen(items: Int, changes: Int = 0, width: Int = 60, height: Int = 15) -> (TUIModel, TestBoard) {
        var t = testBoard()
        t.apply(.editCard(EditCard(card: "k1", description: "Line one\nLine two\nLine three")))
        for n in 1...max(1, items) where items > 0 {
            t.apply(.addChecklistItem(card: "k1", item: ChecklistItemID("i\(n)"), text: "step \(n)", done: false, index: nil))
        }
        t.apply(.addComment(card: "k1", comment: "m1", text: "first comment"), as: "bob")
        t.apply(.addComment(card: "k1", comment: "m2", text: "second comment"), as: "bob")
        for n in 0..<changes { t.apply(.editCard(EditCard(card: "k1", title: "Title \(n + 1)")), as: "bob") }
        var model = model(width: width, height: height)
        model.board = t.board
        _ = model.update(key(.enter))
        let records = t.changes.map(\.activity).filter { $0.card == "k1" }
        _ = model.update(.history("k1", HistoryPage(board: "main", activities: records, more: false)))
        return (model, t)
    }

    /// The checklist items the `… N more items` lines say are not shown.
    static func hiddenCount(_ lines: [String]) -> Int {
        lines.compactMap { line -> Int? in
            guard let range = line.range(of: "… ") else { return nil }
            let digits = line[range.upperBound...].prefix { $0.isNumber }
            return line.contains(" more item") ? Int(digits) : nil
        }.reduce(0, +)
    }

    @Test func atSixtyByFifteenTheSelectedChecklistItemIsAlwaysShownAndTheRestCounted() {
        var (model, _) = Self.detailOpen(items: 10)
        for n in 1...10 {
            let lines = model.render().lines
            let selected = lines.filter { $0.contains("▸ [") }
            #expect(selected.count == 1 && selected.first?.contains("[ ] step \(n) ") == true, "item \(n):\n\(lines.joined(separator: "\n"))")
            let shown = lines.filter { $0.contains("] step ") }.count
            #expect(shown < 10, "at 60×15 the checklist cannot all fit")
            #expect(shown + Self.hiddenCount(lines) == 10, "item \(n): every item shown or counted\n\(lines.joined(separator: "\n"))")
            // Space ticks the item on screen, never one that is not.
            let tick = model.update(Self.key(.character(" ")))
            #expect(tick == [.submit(.editChecklistItem(card: "k1", item: ChecklistItemID("i\(n)"), text: nil, done: true))])
            _ = model.update(Self.key(.character("j")))
        }
        // G and g jump to the ends, and the view follows (the ticks show at once, before the client's update).
        _ = model.update(Self.key(.character("g")))
        #expect(model.render().lines.contains { $0.contains("▸ [x] step 1 ") })
    }

    @Test func atSixtyByFifteenTheHistoryShowsWhatFitsAndCountsTheRest() throws {
        let (model, t) = Self.detailOpen(items: 3, changes: 6)
        let lines = model.render().lines
        let text = lines.joined(separator: "\n")
        let total = t.changes.map(\.activity).filter { $0.card == "k1" }.count
        // The newest change is shown, and the heading says how many older ones are not.
        #expect(lines.contains { $0.contains("\"Title 5\" → \"Title 6\"") }, "\(text)")
        let heading = try #require(lines.first { $0.contains("history (") }, "\(text)")
        let older = Int(heading.split(separator: "(")[1].prefix { $0.isNumber }) ?? -1
        // The rows between the heading and the footer that hold a sentence (inside the box's borders).
        let headingRow = try #require(lines.firstIndex(of: heading))
        let footerRow = try #require(lines.firstIndex { $0.contains("c comment · E edit") })
        let shown = lines[(headingRow + 1)..<footerRow].filter { line in
            !line.split(separator: "│").joined().trimmingCharacters(in: .whitespaces).isEmpty
        }.count
        #expect(older > 0 && older + shown == total, "\(older) + \(shown) of \(total):\n\(text)")
        #expect(lines.contains { $0.contains("c comment · E edit the description · Esc close") })
        // All three checklist items are there (the checklist comes before the history).
        #expect(lines.filter { $0.contains("] step ") }.count == 3, "\(text)")
    }

    @Test func theSmallestTerminalStillShowsTheSelectedChecklistItem() {
        var (model, _) = Self.detailOpen(items: 6, changes: 3, width: 20, height: 8)
        for n in 1...6 {
            let lines = model.render().lines
            #expect(lines.contains { $0.contains("▸ [ ] step \(n)") }, "item \(n):\n\(lines.joined(separator: "\n"))")
            _ = model.update(Self.key(.down))
        }
    }
}
