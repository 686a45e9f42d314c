extension Board {
    /// What a UI shows of the board: every column in board order, each with the cards `include` accepts.
    ///
    /// Cards of each column are in `Card.positionOrder` (rank, then id); by default archived cards are left out.
    /// Cards whose column is not on the board are left out too.
    public func snapshot(where include: (Card) -> Bool = { !$0.archived }) -> BoardSnapshot {
        var byColumn: [ColumnID: [Card]] = [:]
        for card in cards.values where include(card) {
            byColumn[card.column, default: []].append(card)
        }
        let columnSnapshots = columns.map { column in
            ColumnSnapshot(column: column, cards: (byColumn[column.id] ?? []).sorted(by: Card.positionOrder))
        }
        return BoardSnapshot(seq: seq, columns: columnSnapshots)
    }
}
