import BoardCore
import TerminalUI

extension TUIModel {
    /// A key in the card detail: `c` comments, `E` edits the description; the checklist: `j`/`k` select an item,
    /// Space ticks or unticks it, `J`/`K` move it down or up, `x` removes it, `a` adds one.
    mutating func detailKey(_ id: CardID, _ event: KeyEvent) -> [TUIEffect] {
        let items = board?.cards[id]?.checklist ?? []
        let shift = event.modifiers.contains(.shift)
        switch (event.key, shift) {
        case (.character("c"), _):
            // The detail stays open, as for a checklist item: the comment shows up in it, in context.
            return startInput(.comment(id), text: "")
        case (.character("E"), _):
            overlay = nil
            return editDescription(id)
        case (.character("a"), _):
            return startInput(.checklistItem(id), text: "")
        case (.character(" "), _):
            guard items.indices.contains(overlayRow), !isViewer else { return isViewer ? refuseViewer() : [] }
            let item = items[overlayRow]
            return submitShown([.editChecklistItem(card: id, item: item.id, text: nil, done: !item.done)])
        case (.character("J"), _), (.down, true):
            return moveChecklistItem(of: id, by: 1, items: items)
        case (.character("K"), _), (.up, true):
            return moveChecklistItem(of: id, by: -1, items: items)
        case (.character("x"), _), (.delete, _):
            guard items.indices.contains(overlayRow), !isViewer else { return isViewer ? refuseViewer() : [] }
            let item = items[overlayRow]
            overlayRow = max(0, min(overlayRow, items.count - 2))
            return [.submit(.removeChecklistItem(card: id, item: item.id))]
        case (.escape, _), (.enter, _), (.character("q"), _):
            return closeOverlay()
        default:
            _ = moveOverlayRow(event, count: items.count)
            return []
        }
    }

    /// Moves the selected checklist item one place: the protocol has no reorder op, so it is removed and added
    /// again, with its id, text and tick, at its new index (two ops, in order; undo takes them back one by one).
    mutating func moveChecklistItem(of id: CardID, by offset: Int, items: [ChecklistItem]) -> [TUIEffect] {
        guard !isViewer else { return refuseViewer() }
        let target = overlayRow + offset
        guard items.indices.contains(overlayRow), items.indices.contains(target) else { return [] }
        let item = items[overlayRow]
        overlayRow = target
        return submitShown([
            .removeChecklistItem(card: id, item: item.id),
            .addChecklistItem(card: id, item: item.id, text: item.text, done: item.done, index: target),
        ])
    }

    /// The checklist input line: a new item at the end, selected.
    mutating func addChecklistItem(_ text: String, to card: CardID) -> [TUIEffect] {
        guard !text.isEmpty else { return [] }
        var generator = SystemRandomNumberGenerator()
        let item = ChecklistItemID(IDGenerator.make(prefix: "i", using: &generator))
        if case .detail(card)? = overlay { overlayRow = board?.cards[card]?.checklist.count ?? 0 }
        return [.submit(.addChecklistItem(card: card, item: item, text: text, done: false, index: nil))]
    }

    /// A progress bar of `cells` cells, `▰` for done and `▱` for the rest: `▰▰▱`.
    public static func progressBar(done: Int, total: Int, cells: Int) -> String {
        guard total > 0, cells > 0 else { return "" }
        let filled = done >= total ? cells : min(cells - 1, done * cells / total)
        return String(repeating: "▰", count: filled) + String(repeating: "▱", count: cells - filled)
    }

    /// A card's checklist progress as the column shows it: `▰▰▱ 2/3` (at most five cells); nil without a checklist.
    public static func checklistProgress(_ card: Card) -> String? {
        guard !card.checklist.isEmpty else { return nil }
        let done = card.checklist.filter(\.done).count
        let total = card.checklist.count
        return "\(progressBar(done: done, total: total, cells: min(total, 5))) \(done)/\(total)"
    }
}
