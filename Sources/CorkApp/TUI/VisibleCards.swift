import BoardCore

/// The cards each column shows (unarchived, in board order, through the filter) and each column's unarchived count,
/// computed once per change of what they depend on rather than on every key press and frame.
///
/// A value stored in ``TUIModel``: `update` rebuilds it when ``TUIModel/visibleVersion`` moved on (the board, the
/// filter, the user or the day changed), and ``TUIModel/visibleCards(_:)`` reads it only while its version is the
/// model's, so a stale cache is never shown (a model changed from outside `update` computes the columns afresh).
struct VisibleCards: Sendable {
    /// The ``TUIModel/visibleVersion`` these columns were computed for; nil before the first build.
    var version: Int?
    /// Each column's shown cards, by column id; a column with none shown is absent.
    var cards: [ColumnID: [Card]] = [:]
    /// Each column's unarchived cards, filtered or not (what the header and the WIP limit count).
    var totals: [ColumnID: Int] = [:]

    /// An empty cache that matches no version.
    init() {}

    /// The columns of `board` through `filter`, in one pass over its cards, for `version`.
    init(version: Int, board: Board, filter: Query?, context: QueryContext) {
        self.version = version
        for card in board.cards.values where !card.archived {
            totals[card.column, default: 0] += 1
            if let filter, !filter.matches(card, in: board, context: context) { continue }
            cards[card.column, default: []].append(card)
        }
        for column in cards.keys { cards[column]?.sort(by: Card.positionOrder) }
    }

    /// Brings these columns from `old` to `new` by looking only at the cards in `changed` (the `BoardChanges` of
    /// the update), for `version`: what `init(version:board:filter:context:)` would give for `new`, in time
    /// proportional to the change rather than to the board. Returns false, changing nothing, when that cannot be
    /// sure: a filter and a renamed, added or removed column among `columns` (a query may name columns).
    mutating func update(
        cards changed: Set<CardID>, columns: Set<ColumnID>, from old: Board, to new: Board, filter: Query?,
        context: QueryContext, version: Int
    ) -> Bool {
        if filter != nil, columns.contains(where: { old.column($0)?.name != new.column($0)?.name }) { return false }
        for id in changed {
            if let before = old.cards[id], !before.archived {
                let left = (totals[before.column] ?? 1) - 1
                totals[before.column] = left > 0 ? left : nil
                if let index = cards[before.column]?.firstIndex(where: { $0.id == id }) {
                    cards[before.column]?.remove(at: index)
                    if cards[before.column]?.isEmpty == true { cards[before.column] = nil }
                }
            }
            guard let after = new.cards[id], !after.archived else { continue }
            totals[after.column, default: 0] += 1
            if let filter, !filter.matches(after, in: new, context: context) { continue }
            // The first card after this one in position order (the column stays sorted).
            var low = 0
            var high = cards[after.column]?.count ?? 0
            while low < high {
                let middle = (low + high) / 2
                if let other = cards[after.column]?[middle], Card.positionOrder(other, after) {
                    low = middle + 1
                } else {
                    high = middle
                }
            }
            cards[after.column, default: []].insert(after, at: low)
        }
        self.version = version
        return true
    }
}
