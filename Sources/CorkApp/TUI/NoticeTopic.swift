import BoardCore

/// What a status-line notice is about, when that is something still under way: the notice goes when it is over (the
/// change it announced landed or was refused, the state it spoke of changed), not only at the next key.
public enum NoticeTopic: Hashable, Sendable {
    /// The undo or redo of the change at `seq`, sent and not answered yet (`undoing: …`).
    case undo(seq: UInt64)
    /// Changes sent for these cards (`1 card into v1`, `restored #3 to TODO`): over once one of them lands or is
    /// refused, when the feed says so.
    case cards(Set<CardID>)
    /// Whether a description conflict waits for `/keep`, `/theirs` or `/merge`: over when a new conflict arrives.
    case conflict
}

extension TUIModel {
    /// Shows `text` in the status line until the next key or until `topic` is over (``endNotice(about:)``).
    mutating func say(_ text: String, about topic: NoticeTopic) {
        notice = text
        noticeTopic = topic
    }

    /// Clears the notice when it is about `topic`, which is over; a notice about anything else stays.
    mutating func endNotice(about topic: NoticeTopic) {
        guard let shown = noticeTopic else { return }
        let over: Bool
        switch (shown, topic) {
        case (.cards(let announced), .cards(let changed)): over = !announced.isDisjoint(with: changed)
        default: over = shown == topic
        }
        if over { notice = nil }
    }
}
