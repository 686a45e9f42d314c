/// A column of a board (TODO, DOING, DONE by default).
public struct Column: Hashable, Sendable, Codable, Identifiable {
    /// The column's identifier.
    public var id: ColumnID
    /// The column's display name.
    public var name: String
    /// The work-in-progress limit, if any.
    public var wip: WIPLimit?
    /// Whether work on a card in it has started, as set by `column.in_progress`; nil: the default, which is true for
    /// the column `doing` only.
    public var inProgress: Bool?

    /// Makes a column.
    public init(id: ColumnID, name: String, wip: WIPLimit? = nil, inProgress: Bool? = nil) {
        self.id = id
        self.name = name
        self.wip = wip
        self.inProgress = inProgress
    }

    /// Whether a blocked card is kept out of it.
    public var isInProgress: Bool { inProgress ?? (id == Column.defaultInProgress) }

    /// The column that is in progress unless marked otherwise.
    public static let defaultInProgress: ColumnID = "doing"

    enum CodingKeys: String, CodingKey {
        case id, name, wip
        case inProgress = "in_progress"
    }
}

/// A column's work-in-progress limit: how many unarchived cards it may hold.
public struct WIPLimit: Hashable, Sendable, Codable {
    /// The largest number of unarchived cards the column should hold.
    public var limit: Int
    /// Hard limits reject a move or add that would exceed them; soft ones accept it with a warning.
    public var hard: Bool

    /// Makes a limit.
    public init(limit: Int, hard: Bool) {
        self.limit = limit
        self.hard = hard
    }
}
