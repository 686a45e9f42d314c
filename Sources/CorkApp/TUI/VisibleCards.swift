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
}
