extension SnapshotDiff {
    /// Computes the changes that turn `old` into `new`, so that `old.applying(SnapshotDiff(from: old, to: new))`
    /// equals `new`.
    ///
    /// Hashes each column's card ids once and keeps a longest run of cards in order (O(n log n) per column).
    public init(from old: BoardSnapshot, to new: BoardSnapshot) {
        self.init(seq: new.seq)
        diffColumns(from: old, to: new)
        if let oldPlaces = CardPlaces(old), let newPlaces = CardPlaces(new) {
            diffCards(from: old, to: new, oldPlaces: oldPlaces, newPlaces: newPlaces)
        } else {
            replaceCards(from: old, to: new)
        }
    }

    /// Fills the column-level changes.
    private mutating func diffColumns(from old: BoardSnapshot, to new: BoardSnapshot) {
        let oldIDs = old.columns.map(\.column.id)
        let newIDs = new.columns.map(\.column.id)
        let oldIndex = Dictionary(oldIDs.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        let newIndex = Dictionary(newIDs.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        let order = OrderDiff(from: oldIDs, to: newIDs)
        var movedFrom: [ColumnID: Int] = [:]
        for index in order.removed {
            let id = oldIDs[index]
            if newIndex[id] != nil {
                movedFrom[id] = index
            } else {
                removedColumns.append(ColumnRemoval(index: index, id: id))
            }
        }
        for index in order.inserted {
            let id = newIDs[index]
            if let from = movedFrom[id] {
                movedColumns.append(ColumnMove(id: id, fromIndex: from, toIndex: index))
            } else {
                insertedColumns.append(ColumnInsertion(index: index, column: new.columns[index].column))
            }
        }
        for column in new.columns.map(\.column) {
            if let index = oldIndex[column.id], old.columns[index].column != column {
                updatedColumns.append(column)
            }
        }
    }

    /// Fills the card-level changes when card ids are unique in both snapshots.
    private mutating func diffCards(
        from old: BoardSnapshot, to new: BoardSnapshot, oldPlaces: CardPlaces, newPlaces: CardPlaces
    ) {
        let newColumnIDs = Set(new.columns.map(\.column.id))
        // Columns of the new snapshot in order, then the removed ones (they only lose cards).
        var visits: [(id: ColumnID, old: [Card], new: [Card])] = new.columns.map { column in
            (column.column.id, old.column(column.column.id)?.cards ?? [], column.cards)
        }
        for column in old.columns where !newColumnIDs.contains(column.column.id) {
            visits.append((column.column.id, column.cards, []))
        }
        for visit in visits {
            let order = OrderDiff(from: visit.old.map(\.id), to: visit.new.map(\.id))
            var columnChanges = ColumnChanges()
            for index in order.removed where newPlaces[visit.old[index].id] == nil {
                columnChanges.deleted.append(CardDeletion(index: index, id: visit.old[index].id))
            }
            var arrives = [Bool](repeating: false, count: visit.new.count)
            for index in order.inserted {
                arrives[index] = true
            }
            for (index, card) in visit.new.enumerated() {
                guard let from = oldPlaces[card.id] else {
                    columnChanges.inserted.append(CardInsertion(index: index, card: card))
                    continue
                }
                var before = old.columns[from.columnIndex].cards[from.index]
                if arrives[index] {
                    moves.append(
                        CardMove(
                            card: card, fromColumn: old.columns[from.columnIndex].column.id, fromIndex: from.index,
                            toColumn: visit.id, toIndex: index))
                    before.column = card.column
                    before.rank = card.rank
                }
                if before != card { updated.append(card) }
            }
            if !columnChanges.isEmpty { changes[visit.id] = columnChanges }
        }
    }

    /// Fills the card-level changes by deleting every old card and inserting every new one.
    private mutating func replaceCards(from old: BoardSnapshot, to new: BoardSnapshot) {
        for column in old.columns where !column.cards.isEmpty {
            changes[column.column.id, default: ColumnChanges()].deleted =
                column.cards.enumerated().map { CardDeletion(index: $0, id: $1.id) }
        }
        for column in new.columns where !column.cards.isEmpty {
            changes[column.column.id, default: ColumnChanges()].inserted =
                column.cards.enumerated().map { CardInsertion(index: $0, card: $1) }
        }
    }
}

/// Where each card of a snapshot sits, by id; nil when a card id occurs twice.
struct CardPlaces {
    /// A card's column (as an index into the snapshot's columns) and its index in that column.
    typealias Place = (columnIndex: Int, index: Int)

    /// The places by card id.
    private var places: [CardID: Place]

    /// Indexes `snapshot`, or returns nil if a card id repeats.
    init?(_ snapshot: BoardSnapshot) {
        places = [:]
        places.reserveCapacity(snapshot.columns.reduce(0) { $0 + $1.cards.count })
        for (columnIndex, column) in snapshot.columns.enumerated() {
            for (index, card) in column.cards.enumerated() {
                guard places.updateValue((columnIndex, index), forKey: card.id) == nil else { return nil }
            }
        }
    }

    /// The place of the card with this id.
    subscript(id: CardID) -> Place? { places[id] }
}
