@testable import BoardCore

/// A board to diff snapshots of: default columns, plain cards, and edits that pick ranks like the reducer would.
struct SnapshotFixture {
    /// The board being edited.
    var board: Board

    /// A board with columns todo/doing/done and, per column, the given card ids top to bottom (evenly ranked).
    init(todo: [String] = [], doing: [String] = [], done: [String] = []) {
        board = Board(id: "b", name: "B", owner: "alice")
        for (column, ids) in [("todo", todo), ("doing", doing), ("done", done)] as [(ColumnID, [String])] {
            for (id, rank) in zip(ids, Rank.evenlySpaced(count: ids.count)) {
                add(id, to: column, rank: rank)
            }
        }
    }

    /// The default snapshot (archived cards left out).
    var snapshot: BoardSnapshot { board.snapshot() }

    /// A plain card.
    static func card(_ id: String, column: ColumnID = "todo", rank: Rank = Rank("V")!, title: String = "t") -> Card {
        Card(
            id: CardID(id), number: 1, column: column, rank: rank, title: title, createdBy: "alice",
            createdAt: Timestamp(milliseconds: 0))
    }

    /// The ids of a column's cards in a snapshot, top to bottom.
    static func ids(_ snapshot: BoardSnapshot, _ column: ColumnID) -> [String] {
        snapshot.column(column)?.cards.map(\.id.rawValue) ?? []
    }

    /// Adds a card with this rank.
    mutating func add(_ id: String, to column: ColumnID, rank: Rank) {
        var card = SnapshotFixture.card(id, column: column, rank: rank)
        card.number = board.nextCardNumber
        board.nextCardNumber += 1
        board.cards[card.id] = card
        board.seq += 1
    }

    /// Adds a card at `index` among the column's shown cards.
    mutating func add(_ id: String, to column: ColumnID, at index: Int) {
        add(id, to: column, rank: rank(in: column, at: index, without: nil))
    }

    /// Moves a card to `index` among the shown cards of `column` (after taking it out), giving it a rank between its
    /// new neighbours.
    mutating func move(_ id: String, to column: ColumnID, at index: Int) {
        let cardID = CardID(id)
        let rank = rank(in: column, at: index, without: cardID)
        board.cards[cardID]!.column = column
        board.cards[cardID]!.rank = rank
        board.seq += 1
    }

    /// Changes a card's fields.
    mutating func edit(_ id: String, _ change: (inout Card) -> Void) {
        change(&board.cards[CardID(id)]!)
        board.seq += 1
    }

    /// Deletes a card.
    mutating func delete(_ id: String) {
        board.cards[CardID(id)] = nil
        board.seq += 1
    }

    /// A rank that sorts at `index` among the column's shown cards, leaving out `without`.
    private func rank(in column: ColumnID, at index: Int, without: CardID?) -> Rank {
        let cards = board.cards(in: column).filter { $0.id != without }
        let lower = index > 0 ? cards[index - 1].rank : nil
        let upper = index < cards.count ? cards[index].rank : nil
        return Rank.between(lower, upper)!
    }
}
