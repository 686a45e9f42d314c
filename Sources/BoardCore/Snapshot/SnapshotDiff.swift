/// The changes that turn one ``BoardSnapshot`` into another, shaped for UIs (diffable data sources, batch updates).
///
/// Each change is listed exactly once:
/// - Columns: ``removedColumns`` (only in the old snapshot), ``insertedColumns`` (only in the new one),
///   ``movedColumns`` (in both, but their place among the columns changed) and ``updatedColumns`` (in both, name
///   or WIP limit changed).
/// - Cards, matched by id across all columns: ``changes``, keyed by column id, holds the `deleted` cards (only in
///   the old snapshot) and `inserted` cards (only in the new one) of each column; ``moves`` holds the cards in both
///   that changed position, within a column or across columns. **A moved card is only in ``moves``**, never also in
///   `deleted` or `inserted`. ``updated`` holds cards in both whose content changed.
///
/// Cards of a removed column are all listed as deleted or moved away, and cards of an inserted column as inserted
/// or moved in. The cards that stay put are a longest run kept in the same order, so moving one card is one move.
///
/// ## Application order
///
/// The indices are valid when the diff is applied in this order, which is what ``BoardSnapshot/applying(_:)``
/// does:
/// 1. **Remove cards.** In each column, remove the cards at the `deleted` indices of its ``changes`` and at the
///    `fromIndex` of each move whose `fromColumn` it is, one at a time in **descending** index. These indices are
///    positions in the column of the old snapshot.
/// 2. **Change columns.** Remove the columns at the ``removedColumns`` indices and at the `fromIndex` of each
///    ``movedColumns`` entry, one at a time in descending index (positions among the old columns; a removed column
///    is empty by now). Then insert each ``insertedColumns`` column (empty) and each moved column (with the cards it
///    still holds) at its `index` / `toIndex`, one at a time in **ascending** index (positions among the new
///    columns).
/// 3. **Insert cards.** In each column, insert the `inserted` cards of its ``changes`` and the `card` of each move
///    whose `toColumn` it is, one at a time in **ascending** index. These indices are positions in the column of the
///    new snapshot.
/// 4. **Replace content.** Replace each card in ``updated`` and each column in ``updatedColumns``, found by id,
///    with its new value; the result takes ``seq``.
///
/// These are the index conventions of `UICollectionView.performBatchUpdates`: deletions and move sources in old
/// positions, insertions and move destinations in new ones; ``updated`` maps to reconfiguring items. A UI that
/// deletes whole sections may skip the card deletions of removed columns.
///
/// Both snapshots must have unique column ids (every ``Board/snapshot(where:)`` has). If card ids repeat, the diff
/// still applies exactly but lists every card as deleted and inserted again.
public struct SnapshotDiff: Hashable, Sendable {
    /// The new snapshot's seq, which replaces the old one.
    public var seq: UInt64
    /// Columns only in the old snapshot, ascending by their old index.
    public var removedColumns: [ColumnRemoval]
    /// Columns only in the new snapshot, ascending by their new index.
    public var insertedColumns: [ColumnInsertion]
    /// Columns in both snapshots that changed place, ascending by their new index.
    public var movedColumns: [ColumnMove]
    /// Columns in both snapshots whose name or WIP limit changed, with their new value, in new order.
    public var updatedColumns: [Column]
    /// The plain card deletions and insertions of each column that has any, keyed by column id.
    ///
    /// A removed column's deletions and an inserted column's insertions are keyed by its id too.
    public var changes: [ColumnID: ColumnChanges]
    /// Cards in both snapshots that changed position (within or across columns), in new order (column, index).
    public var moves: [CardMove]
    /// Cards in both snapshots whose content changed, with their new value, in new order (column, index).
    ///
    /// For a moved card this means any field other than its position (`column` and `rank`, which the move
    /// carries). For a card that did not move it means any field at all: a rank that changed without the card
    /// changing place (a column was re-keyed) is listed here, so that applying gives the new snapshot exactly.
    public var updated: [Card]

    /// Makes a diff from its parts.
    public init(
        seq: UInt64, removedColumns: [ColumnRemoval] = [], insertedColumns: [ColumnInsertion] = [],
        movedColumns: [ColumnMove] = [], updatedColumns: [Column] = [], changes: [ColumnID: ColumnChanges] = [:],
        moves: [CardMove] = [], updated: [Card] = []
    ) {
        self.seq = seq
        self.removedColumns = removedColumns
        self.insertedColumns = insertedColumns
        self.movedColumns = movedColumns
        self.updatedColumns = updatedColumns
        self.changes = changes
        self.moves = moves
        self.updated = updated
    }

    /// Whether nothing a UI shows changed (the seq may still differ).
    public var isEmpty: Bool {
        removedColumns.isEmpty && insertedColumns.isEmpty && movedColumns.isEmpty && updatedColumns.isEmpty
            && changes.values.allSatisfy(\.isEmpty) && moves.isEmpty && updated.isEmpty
    }

    /// The number of card deletions, insertions, moves and updates (columns not counted).
    public var cardChangeCount: Int {
        changes.values.reduce(0) { $0 + $1.deleted.count + $1.inserted.count } + moves.count + updated.count
    }
}
