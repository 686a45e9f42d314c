extension BoardSnapshot {
    /// This snapshot with `diff` applied in the order documented on ``SnapshotDiff``, or nil if the diff does not fit.
    ///
    /// A diff does not fit when an index is out of range or listed twice in one step, when the card or column at a
    /// removal index does not have the recorded id, when a removed column still holds cards, or when a column or
    /// card it names is missing. For every pair of snapshots with unique column ids,
    /// `old.applying(SnapshotDiff(from: old, to: new)) == new`.
    public func applying(_ diff: SnapshotDiff) -> BoardSnapshot? {
        var columns = self.columns

        // 1. Remove deleted and moved-away cards, in descending old index, column by column.
        var removals: [ColumnID: [(index: Int, key: CardID)]] = [:]
        for (columnID, changes) in diff.changes {
            removals[columnID, default: []] += changes.deleted.map { ($0.index, $0.id) }
        }
        for move in diff.moves {
            removals[move.fromColumn, default: []].append((move.fromIndex, move.id))
        }
        var position = BoardSnapshot.positions(of: columns)
        for (columnID, cardRemovals) in removals where !cardRemovals.isEmpty {
            guard let columnIndex = position[columnID],
                let remaining = BoardSnapshot.removing(
                    cardRemovals, from: columns[columnIndex].cards, matches: { $0.id == $1 })
            else { return nil }
            columns[columnIndex].cards = remaining.kept
        }

        // 2. Remove removed and moved columns (descending old index), insert new and moved ones (ascending new index).
        let columnRemovals =
            diff.removedColumns.map { ($0.index, $0.id) } + diff.movedColumns.map { ($0.fromIndex, $0.id) }
        guard
            let removedColumns = BoardSnapshot.removing(
                columnRemovals, from: columns, matches: { $0.column.id == $1 })
        else { return nil }
        let movedIDs = Set(diff.movedColumns.map(\.id))
        var movedColumns: [ColumnID: ColumnSnapshot] = [:]
        for column in removedColumns.removed {
            if movedIDs.contains(column.column.id) {
                movedColumns[column.column.id] = column
            } else if !column.cards.isEmpty {
                return nil
            }
        }
        var columnInsertions = diff.insertedColumns.map { ($0.index, ColumnSnapshot(column: $0.column, cards: [])) }
        for move in diff.movedColumns {
            guard let column = movedColumns[move.id] else { return nil }
            columnInsertions.append((move.toIndex, column))
        }
        guard let arranged = BoardSnapshot.inserting(columnInsertions, into: removedColumns.kept) else { return nil }
        columns = arranged

        // 3. Insert new and moved-in cards, in ascending new index, column by column.
        var insertions: [ColumnID: [(index: Int, element: Card)]] = [:]
        for (columnID, changes) in diff.changes {
            insertions[columnID, default: []] += changes.inserted.map { ($0.index, $0.card) }
        }
        for move in diff.moves {
            insertions[move.toColumn, default: []].append((move.toIndex, move.card))
        }
        position = BoardSnapshot.positions(of: columns)
        for (columnID, cardInsertions) in insertions where !cardInsertions.isEmpty {
            guard let columnIndex = position[columnID],
                let cards = BoardSnapshot.inserting(cardInsertions, into: columns[columnIndex].cards)
            else { return nil }
            columns[columnIndex].cards = cards
        }

        // 4. Replace updated columns and cards by id.
        for column in diff.updatedColumns {
            guard let columnIndex = position[column.id] else { return nil }
            columns[columnIndex].column = column
        }
        if !diff.updated.isEmpty {
            var cardPlaces: [CardID: (columnIndex: Int, index: Int)] = [:]
            for (columnIndex, column) in columns.enumerated() {
                for (index, card) in column.cards.enumerated() where cardPlaces[card.id] == nil {
                    cardPlaces[card.id] = (columnIndex, index)
                }
            }
            for card in diff.updated {
                guard let place = cardPlaces[card.id] else { return nil }
                columns[place.columnIndex].cards[place.index] = card
            }
        }
        return BoardSnapshot(seq: diff.seq, columns: columns)
    }

    /// The index of each column by id (the first, should an id repeat).
    private static func positions(of columns: [ColumnSnapshot]) -> [ColumnID: Int] {
        Dictionary(columns.enumerated().map { ($1.column.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Removes the elements at `removals`' indices, as if one at a time in descending index.
    ///
    /// Returns nil if an index repeats or is out of range, or if the element there does not match its key.
    private static func removing<Element, Key>(
        _ removals: [(index: Int, key: Key)], from elements: [Element], matches: (Element, Key) -> Bool
    ) -> (kept: [Element], removed: [Element])? {
        var removed = [Bool](repeating: false, count: elements.count)
        for removal in removals {
            guard elements.indices.contains(removal.index), !removed[removal.index],
                matches(elements[removal.index], removal.key)
            else { return nil }
            removed[removal.index] = true
        }
        var kept: [Element] = []
        var gone: [Element] = []
        kept.reserveCapacity(elements.count - removals.count)
        for (index, element) in elements.enumerated() {
            if removed[index] { gone.append(element) } else { kept.append(element) }
        }
        return (kept, gone)
    }

    /// Inserts `insertions` at their indices, as if one at a time in ascending index.
    ///
    /// Returns nil if an index repeats or one does not fit (each must be at most the count at its turn, that is
    /// below the final count).
    private static func inserting<Element>(
        _ insertions: [(index: Int, element: Element)], into elements: [Element]
    ) -> [Element]? {
        let sorted = insertions.sorted { $0.index < $1.index }
        let total = elements.count + sorted.count
        for (position, insertion) in sorted.enumerated() {
            guard insertion.index >= 0, insertion.index < total,
                position == 0 || sorted[position - 1].index < insertion.index
            else { return nil }
        }
        var result: [Element] = []
        result.reserveCapacity(total)
        var next = 0
        var source = elements.makeIterator()
        for index in 0..<total {
            if next < sorted.count, sorted[next].index == index {
                result.append(sorted[next].element)
                next += 1
            } else if let element = source.next() {
                result.append(element)
            }
        }
        return result
    }
}
