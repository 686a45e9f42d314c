import BoardCore

/// What a Trello import will do: counts of what it creates, and warnings about what it leaves out.
public struct TrelloImportSummary: Hashable, Sendable {
    /// The Trello board's name.
    public var boardName: String
    /// Columns created for Trello lists that had no column of the same name.
    public var columnsCreated = 0
    /// Trello lists that went into an existing column of the same name.
    public var columnsReused = 0
    /// Cards added (archived ones included).
    public var cards = 0
    /// Cards of the export already on the board (a card with the same Trello ref: imported before), in order; they
    /// and their checklists and comments are not sent again.
    public var existingCards: [CardID] = []
    /// Labels created (labels whose name the board already has are reused, not counted).
    public var labelsCreated = 0
    /// Checklist items added.
    public var checklistItems = 0
    /// Comments added.
    public var comments = 0
    /// Cards archived: closed Trello cards and the cards of closed lists.
    public var archived = 0
    /// Cards closed because their due date was marked complete.
    public var closed = 0
    /// Things skipped or changed on the way in, one sentence each (attachments, members, cut text, …).
    public var warnings: [String] = []

    /// Makes an empty summary for the board named `boardName`.
    public init(boardName: String) { self.boardName = boardName }
}
