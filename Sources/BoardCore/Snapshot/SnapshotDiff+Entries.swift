extension SnapshotDiff {
    /// A column that is gone from the new snapshot.
    public struct ColumnRemoval: Hashable, Sendable {
        /// Its position in the old snapshot's columns.
        public var index: Int
        /// Its id.
        public var id: ColumnID

        /// Makes a column removal.
        public init(index: Int, id: ColumnID) {
            self.index = index
            self.id = id
        }
    }

    /// A column that is new in the new snapshot; it arrives empty and its cards are inserted or moved into it.
    public struct ColumnInsertion: Hashable, Sendable {
        /// Its position in the new snapshot's columns.
        public var index: Int
        /// The column, as the new snapshot has it.
        public var column: Column

        /// Makes a column insertion.
        public init(index: Int, column: Column) {
            self.index = index
            self.column = column
        }
    }

    /// A column found in both snapshots that changed place relative to the others; it moves with its cards.
    public struct ColumnMove: Hashable, Sendable {
        /// The column's id.
        public var id: ColumnID
        /// Its position in the old snapshot's columns.
        public var fromIndex: Int
        /// Its position in the new snapshot's columns.
        public var toIndex: Int

        /// Makes a column move.
        public init(id: ColumnID, fromIndex: Int, toIndex: Int) {
            self.id = id
            self.fromIndex = fromIndex
            self.toIndex = toIndex
        }
    }

    /// A card that is gone from the new snapshot (deleted, archived, filtered out or in a removed column).
    public struct CardDeletion: Hashable, Sendable {
        /// Its position in its column of the old snapshot.
        public var index: Int
        /// Its id.
        public var id: CardID

        /// Makes a card deletion.
        public init(index: Int, id: CardID) {
            self.index = index
            self.id = id
        }
    }

    /// A card that is new in the new snapshot.
    public struct CardInsertion: Hashable, Sendable {
        /// Its position in its column of the new snapshot.
        public var index: Int
        /// The card, as the new snapshot has it.
        public var card: Card

        /// Makes a card insertion.
        public init(index: Int, card: Card) {
            self.index = index
            self.card = card
        }
    }

    /// The plain deletions and insertions of one column's cards (moves are listed in ``SnapshotDiff/moves``).
    public struct ColumnChanges: Hashable, Sendable {
        /// Cards that are gone, ascending by their index in the old column.
        public var deleted: [CardDeletion]
        /// Cards that are new, ascending by their index in the new column.
        public var inserted: [CardInsertion]

        /// Makes the changes of one column.
        public init(deleted: [CardDeletion] = [], inserted: [CardInsertion] = []) {
            self.deleted = deleted
            self.inserted = inserted
        }

        /// Whether the column has neither deletions nor insertions.
        public var isEmpty: Bool { deleted.isEmpty && inserted.isEmpty }
    }

    /// A card found in both snapshots that left one position and appears at another.
    ///
    /// The move is within one column (a reorder, `fromColumn == toColumn`) or across columns. It is one removal at
    /// `fromIndex` of `fromColumn` and one insertion of `card` at `toIndex` of `toColumn`, with the indices meant as
    /// for ``CardDeletion/index`` and ``CardInsertion/index``.
    public struct CardMove: Hashable, Sendable {
        /// The card as the new snapshot has it (its new `column` and `rank` travel with the move).
        public var card: Card
        /// The column it leaves.
        public var fromColumn: ColumnID
        /// Its position in `fromColumn` of the old snapshot.
        public var fromIndex: Int
        /// The column it arrives in.
        public var toColumn: ColumnID
        /// Its position in `toColumn` of the new snapshot.
        public var toIndex: Int

        /// Makes a card move.
        public init(card: Card, fromColumn: ColumnID, fromIndex: Int, toColumn: ColumnID, toIndex: Int) {
            self.card = card
            self.fromColumn = fromColumn
            self.fromIndex = fromIndex
            self.toColumn = toColumn
            self.toIndex = toIndex
        }

        /// The moved card's id.
        public var id: CardID { card.id }
    }
}
