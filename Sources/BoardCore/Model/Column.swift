/// A column of a board (TODO, DOING, DONE by default).
public struct Column: Hashable, Sendable, Codable, Identifiable {
    /// The column's identifier.
    public var id: ColumnID
    /// The column's display name.
    public var name: String
    /// The work-in-progress limit, if any.
    public var wip: WIPLimit?

    /// Makes a column.
    public init(id: ColumnID, name: String, wip: WIPLimit? = nil) {
        self.id = id
        self.name = name
        self.wip = wip
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
