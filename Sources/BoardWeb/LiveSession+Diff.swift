import BoardClientCore
import BoardCore

/// What the page shows, and the diff from it to a new board computed from the cards a change names.
extension LiveSession {
    struct Shown: Equatable, Sendable {
        var board: BoardID
        var columns: [Column]
        var cards: [ColumnID: [CardID]]

        init(_ board: Board) {
            self.board = board.id
            columns = board.columns
            cards = [:]
            for column in columns { cards[column.id] = Self.order(of: column.id, in: board) }
        }

        /// The ids of a column's cards as the page shows them (archived ones left out), in board order.
        static func order(of column: ColumnID, in board: Board) -> [CardID] {
            board.cardIDs(in: column)
        }
    }

    /// A column's new order after a change of the cards `changed`: the order shown without them, and each of them
    /// that is (still, or now) in the column put back at its place by rank and id. The cards that did not change
    /// keep their order, so only the changed ones are looked up (a binary search each), not every card of the board.
    static func order(of column: ColumnID, after changed: Set<CardID>, shown: [CardID], in board: Board) -> [CardID] {
        let named = Array(changed)
        var ids = shown.filter { !named.contains($0) }
        let arriving = changed.compactMap { id -> (rank: Rank, id: CardID)? in
            guard let card = board.cards[id], card.column == column, !card.archived else { return nil }
            return (card.rank, id)
        }
        for place in arriving.sorted(by: { $0.rank != $1.rank ? $0.rank < $1.rank : $0.id < $1.id }) {
            var low = 0
            var high = ids.count
            while low < high {
                let middle = (low + high) / 2
                guard let rank = board.cards[ids[middle]]?.rank else { return board.cardIDs(in: column) }
                if rank < place.rank || (rank == place.rank && ids[middle] < place.id) { low = middle + 1 } else { high = middle }
            }
            ids.insert(place.id, at: low)
        }
        return ids
    }

    /// The diff from what the page shows to `board`, looking only at the cards `changes` names and the columns they
    /// leave and enter; nil when the columns themselves changed or the change touches everything (the page then
    /// gets the whole board), or when the result does not add up (the same).
    static func diff(from shown: Shown, to board: Board, changes: BoardChanges) -> (diff: SnapshotDiff, shown: Shown)? {
        guard case .parts(let changed, _) = changes, board.columns == shown.columns else { return nil }
        // A change names few cards: find them by comparing ids, not by hashing every id the page shows.
        let named = Array(changed)
        var oldPlace: [CardID: (column: ColumnID, index: Int)] = [:]
        for (column, ids) in shown.cards {
            for id in named { if let index = ids.firstIndex(of: id) { oldPlace[id] = (column, index) } }
        }
        var affected = Set(oldPlace.values.map(\.column))
        for id in changed {
            if let card = board.cards[id], !card.archived, shown.cards[card.column] != nil { affected.insert(card.column) }
        }
        var next = shown
        var newPlace: [CardID: (column: ColumnID, index: Int)] = [:]
        for column in affected {
            let order = Self.order(of: column, after: changed, shown: shown.cards[column] ?? [], in: board)
            next.cards[column] = order
            for id in named { if let index = order.firstIndex(of: id) { newPlace[id] = (column, index) } }
        }
        var diff = SnapshotDiff(seq: board.seq)
        for id in changed {
            switch (oldPlace[id], newPlace[id]) {
            case (let old?, let new?):
                guard let card = board.cards[id] else { return nil }
                if old.column == new.column && old.index == new.index {
                    diff.updated.append(card)
                } else {
                    diff.moves.append(
                        SnapshotDiff.CardMove(
                            card: card, fromColumn: old.column, fromIndex: old.index, toColumn: new.column, toIndex: new.index))
                }
            case (let old?, nil):
                diff.changes[old.column, default: .init()].deleted.append(.init(index: old.index, id: id))
            case (nil, let new?):
                guard let card = board.cards[id] else { return nil }
                diff.changes[new.column, default: .init()].inserted.append(.init(index: new.index, card: card))
            case (nil, nil):
                break
            }
        }
        // The page applies removals by descending old index and insertions by ascending new index; replay that on
        // the ids and check it gives the new order, or fall back to the whole board.
        for column in affected {
            var ids = shown.cards[column] ?? []
            var removals = (diff.changes[column]?.deleted.map(\.index) ?? [])
                + diff.moves.filter { $0.fromColumn == column }.map(\.fromIndex)
            removals.sort(by: >)
            for index in removals {
                guard ids.indices.contains(index) else { return nil }
                ids.remove(at: index)
            }
            var insertions = (diff.changes[column]?.inserted.map { ($0.index, $0.card.id) } ?? [])
                + diff.moves.filter { $0.toColumn == column }.map { ($0.toIndex, $0.card.id) }
            insertions.sort { $0.0 < $1.0 }
            for (index, id) in insertions {
                guard index <= ids.count else { return nil }
                ids.insert(id, at: index)
            }
            guard ids == next.cards[column] else { return nil }
        }
        return (diff, next)
    }
}
