/// A kanban board: columns, cards, labels, milestones and members, at one `seq`.
///
/// `Board` is a value. The reducer (`Board.apply`) is the only way ops change it, and it is pure: the same board,
/// op and context always give the same result, on the server and in every client's replica.
public struct Board: Hashable, Sendable, Identifiable {
    /// The board's identifier (e.g. `main`).
    public var id: BoardID
    /// The board's display name.
    public var name: String
    /// The seq of the last change applied (0 for a new board).
    public var seq: UInt64
    /// The columns, left to right.
    public var columns: [Column]
    /// Every card that has not been purged, archived ones included.
    ///
    /// Changing it from outside the reducer drops the per-column placement index, which the next placement rebuilds.
    public var cards: [CardID: Card] {
        get { cardTable }
        set {
            cardTable = newValue
            slots = nil
        }
        _modify {
            slots = nil
            yield &cardTable
        }
    }
    /// The labels, in the order they were created.
    public var labels: [Label]
    /// The milestones, in the order they were created.
    public var milestones: [Milestone]
    /// The members, by user name.
    public var members: [UserID: Member]
    /// The number the next added card gets.
    public var nextCardNumber: Int
    /// Cards that were purged: ops on them fail with `gone` rather than `not_found`.
    public var purged: Set<CardID>
    /// How many hours before a card's due day its watchers are reminded (`board.remind`); nil: the server's default
    /// (24).
    public var remindHours: Int?
    /// The storage of `cards`; the reducer writes it directly and keeps `slots` current.
    var cardTable: [CardID: Card]
    /// Each column's cards in board order, for placement (derived: not part of equality, hashing or encoding); nil
    /// when not built yet or dropped by a change of `cards` from outside the reducer.
    var slots: ColumnSlots?

    /// Makes a board with the given columns (by default TODO, DOING, DONE) and one owner.
    public init(
        id: BoardID, name: String, owner: UserID,
        columns: [Column] = Board.defaultColumns
    ) {
        self.id = id
        self.name = name
        self.seq = 0
        self.columns = columns
        self.cardTable = [:]
        self.slots = nil
        self.labels = []
        self.milestones = []
        self.members = [owner: Member(id: owner, role: .owner)]
        self.nextCardNumber = 1
        self.purged = []
        self.remindHours = nil
    }

    /// Equal boards hold the same content; the placement index is left out.
    public static func == (a: Board, b: Board) -> Bool {
        a.id == b.id && a.name == b.name && a.seq == b.seq && a.columns == b.columns && a.cardTable == b.cardTable
            && a.labels == b.labels && a.milestones == b.milestones && a.members == b.members
            && a.nextCardNumber == b.nextCardNumber && a.purged == b.purged && a.remindHours == b.remindHours
    }

    /// Hashes the content; the placement index is left out.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(name)
        hasher.combine(seq)
        hasher.combine(columns)
        hasher.combine(cardTable)
        hasher.combine(labels)
        hasher.combine(milestones)
        hasher.combine(members)
        hasher.combine(nextCardNumber)
        hasher.combine(purged)
        hasher.combine(remindHours)
    }

    /// TODO, DOING and DONE.
    public static let defaultColumns: [Column] = [
        Column(id: "todo", name: "TODO"),
        Column(id: "doing", name: "DOING"),
        Column(id: "done", name: "DONE"),
    ]
}

extension Board {
    /// The column with this id.
    public func column(_ id: ColumnID) -> Column? { columns.first { $0.id == id } }

    /// The index of the column with this id.
    public func columnIndex(_ id: ColumnID) -> Int? { columns.firstIndex { $0.id == id } }

    /// The column whose id or name matches `text`, ignoring case.
    public func column(named text: String) -> Column? {
        let lower = text.lowercased()
        return columns.first { $0.id.rawValue.lowercased() == lower }
            ?? columns.first { $0.name.lowercased() == lower }
    }

    /// The label with this id.
    public func label(_ id: LabelID) -> Label? { labels.first { $0.id == id } }

    /// The label whose id or name matches `text`, ignoring case.
    public func label(named text: String) -> Label? {
        let lower = text.lowercased()
        return labels.first { $0.name.lowercased() == lower } ?? labels.first { $0.id.rawValue.lowercased() == lower }
    }

    /// The milestone with this id.
    public func milestone(_ id: MilestoneID) -> Milestone? { milestones.first { $0.id == id } }

    /// The card with this `#N` number.
    public func card(number: Int) -> Card? { cards.values.first { $0.number == number } }

    /// The card with this external reference.
    public func card(ref: String) -> Card? { cards.values.first { $0.ref == ref } }

    /// The cards of a column in board order; archived cards only when `includeArchived`.
    public func cards(in column: ColumnID, includeArchived: Bool = false) -> [Card] {
        cards.values.filter { $0.column == column && (includeArchived || !$0.archived) }
            .sorted(by: Card.positionOrder)
    }

    /// The ids of a column's cards in board order (``Card/positionOrder``); archived cards only when
    /// `includeArchived`. Sorts ranks and ids, not whole cards: for callers that need only the order.
    public func cardIDs(in column: ColumnID, includeArchived: Bool = false) -> [CardID] {
        var places: [(rank: Rank, id: CardID)] = []
        for card in cards.values where card.column == column && (includeArchived || !card.archived) {
            places.append((card.rank, card.id))
        }
        places.sort { $0.rank != $1.rank ? $0.rank < $1.rank : $0.id < $1.id }
        return places.map(\.id)
    }

    /// How many unarchived cards a column holds (what its WIP limit counts).
    public func count(in column: ColumnID) -> Int {
        cards.values.reduce(0) { $0 + ($1.column == column && !$1.archived ? 1 : 0) }
    }

    /// A milestone's progress: unarchived cards in it that are done, out of all of them.
    public func progress(of milestone: MilestoneID) -> MilestoneProgress {
        var progress = MilestoneProgress(done: 0, total: 0)
        for card in cards.values where card.milestone == milestone && !card.archived {
            progress.total += 1
            if isDone(card) { progress.done += 1 }
        }
        return progress
    }

    /// Whether `card` is done: closed, or in the board's last column. Milestone progress, dependencies, reminders
    /// and overdue dates all count it so.
    public func isDone(_ card: Card) -> Bool {
        card.closed || card.column == columns.last?.id
    }

    /// Whether `card` is overdue on `today`: due before it and not done (a card in DONE past its date is finished,
    /// not late).
    public func isOverdue(_ card: Card, today: Day) -> Bool {
        guard let due = card.due, !isDone(card) else { return false }
        return due < today
    }
}
