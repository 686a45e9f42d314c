/// One column of a ``BoardSnapshot``: the column itself and the cards it displays, top to bottom.
public struct ColumnSnapshot: Hashable, Sendable {
    /// The column (id, name and WIP limit).
    public var column: Column
    /// The cards shown in the column, in display order.
    public var cards: [Card]

    /// Makes a column snapshot.
    public init(column: Column, cards: [Card]) {
        self.column = column
        self.cards = cards
    }
}
