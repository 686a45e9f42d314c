import BoardCore

/// Turns `cork checklist CARD add TEXT | done N | undo N | remove N` into ops, and shows a checklist. Items are
/// numbered from 1 in the card's order, as `cork checklist CARD list` and `cork show CARD` print them.
public enum ChecklistOps {
    /// The `checklist.add` of a new, open item at the end of the card's checklist.
    public static func add(_ text: String, to card: Card, item: ChecklistItemID) throws(CorkFailure) -> Op {
        let trimmed = text.trimmingSpaces
        guard !trimmed.isEmpty, trimmed.count <= Limits.checklistTextMaxCharacters else {
            throw CorkFailure.usage("a checklist item must be 1–\(Limits.checklistTextMaxCharacters) characters")
        }
        return .addChecklistItem(card: card.id, item: item, text: trimmed, done: false, index: nil)
    }

    /// The `checklist.edit` that ticks (`done`) or unticks item `number` (1-based).
    public static func mark(_ number: Int, of card: Card, done: Bool) throws(CorkFailure) -> Op {
        .editChecklistItem(card: card.id, item: try item(number, of: card).id, text: nil, done: done)
    }

    /// The `checklist.remove` of item `number` (1-based).
    public static func remove(_ number: Int, of card: Card) throws(CorkFailure) -> Op {
        .removeChecklistItem(card: card.id, item: try item(number, of: card).id)
    }

    /// Item `number` (1-based) of the card's checklist: exit 5 when there is none.
    public static func item(_ number: Int, of card: Card) throws(CorkFailure) -> ChecklistItem {
        guard number >= 1, number <= card.checklist.count else {
            let has = card.checklist.isEmpty ? "it has no checklist" : "it has items 1–\(card.checklist.count)"
            throw CorkFailure(.notFound, "no checklist item \(number) on #\(card.number); \(has)")
        }
        return card.checklist[number - 1]
    }

    /// `3/5`: items done of all items.
    public static func progress(_ card: Card) -> String {
        "\(card.checklist.filter(\.done).count)/\(card.checklist.count)"
    }

    /// The checklist as text: `#3 title: checklist 1/2`, then the items.
    public static func text(_ card: Card) -> String {
        "#\(card.number) \(FeedText.oneLine(card.title)): checklist \(progress(card))\n" + items(card)
    }

    /// `  1. [x] text`, one line per item (nothing for an empty checklist).
    public static func items(_ card: Card) -> String {
        card.checklist.enumerated().map { index, item in
            "  \(index + 1). [\(item.done ? "x" : " ")] \(FeedText.oneLine(item.text))\n"
        }.joined()
    }
}
