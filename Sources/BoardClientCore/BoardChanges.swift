import BoardCore

/// What a board update changed, so a UI redraws only that: some cards and columns, or anything at all.
///
/// Worked out from the ops themselves (a card op names its card, a move its two columns), never by comparing
/// boards, so it costs in proportion to the change.
public enum BoardChanges: Hashable, Sendable {
    /// Anything may have changed: a new snapshot, or an op that touches every card's rendering (a label's colour,
    /// a member's name, the board's name).
    case everything
    /// Only these cards (their fields, or their place) and these columns (their name, limit, or the order of their
    /// cards) changed. Both empty: nothing shown changed.
    case parts(cards: Set<CardID>, columns: Set<ColumnID>)

    /// Nothing changed.
    public static let nothing = BoardChanges.parts(cards: [], columns: [])

    /// Whether nothing changed.
    public var isEmpty: Bool { self == .nothing }

    /// Whether `card` may have changed.
    public func contains(card: CardID) -> Bool {
        switch self {
        case .everything: true
        case .parts(let cards, _): cards.contains(card)
        }
    }

    /// Whether `column` (its name, limit, or the order of its cards) may have changed.
    public func contains(column: ColumnID) -> Bool {
        switch self {
        case .everything: true
        case .parts(_, let columns): columns.contains(column)
        }
    }

    /// Both changes together.
    public func union(_ other: BoardChanges) -> BoardChanges {
        switch (self, other) {
        case (.parts(let cards, let columns), .parts(let moreCards, let moreColumns)):
            .parts(cards: cards.union(moreCards), columns: columns.union(moreColumns))
        default: .everything
        }
    }

    /// What `op` changes when applied to `board` (the board before it): O(1), by looking at the op.
    public static func of(_ op: Op, on board: Board) -> BoardChanges {
        /// The card and the column it is in before the op.
        func card(_ id: CardID, to column: ColumnID? = nil) -> BoardChanges {
            var columns = Set<ColumnID>()
            if let before = board.cards[id]?.column { columns.insert(before) }
            if let column { columns.insert(column) }
            return .parts(cards: [id], columns: columns)
        }
        switch op {
        case .renameBoard, .setRemindHours, .setMember, .removeMember, .createLabel, .updateLabel, .deleteLabel, .createMilestone,
            .updateMilestone, .closeMilestone, .reopenMilestone, .deleteMilestone, .removeColumn:
            return .everything
        case .addColumn(let column, _, _), .renameColumn(let column, _), .moveColumn(let column, _),
            .setWIPLimit(let column, _), .setInProgress(let column, _):
            return .parts(cards: [], columns: [column])
        case .addCard(let add): return card(add.card, to: add.column)
        case .editCard(let edit): return card(edit.card)
        case .moveCard(let id, let column, _, _): return card(id, to: column)
        case .addLabel(let id, _), .removeLabel(let id, _), .assign(let id, _), .unassign(let id, _),
            .blockCard(let id, _), .unblockCard(let id, _), .setRecurrence(let id, _), .watchCard(let id), .unwatchCard(let id),
            .closeCard(let id), .reopenCard(let id), .archiveCard(let id), .restoreCard(let id), .purgeCard(let id),
            .addChecklistItem(let id, _, _, _, _), .editChecklistItem(let id, _, _, _), .removeChecklistItem(let id, _),
            .addComment(let id, _, _), .editComment(let id, _, _), .deleteComment(let id, _):
            return card(id)
        case .chat:
            return .nothing
        }
    }
}
