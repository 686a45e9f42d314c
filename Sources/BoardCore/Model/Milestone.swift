/// A milestone that groups cards, with a due date and progress.
public struct Milestone: Hashable, Sendable, Codable, Identifiable {
    /// The milestone's identifier.
    public var id: MilestoneID
    /// The milestone's title.
    public var title: String
    /// A longer description.
    public var description: String
    /// When the milestone is due.
    public var due: Day?
    /// Whether the milestone is closed.
    public var closed: Bool

    /// Makes a milestone.
    public init(id: MilestoneID, title: String, description: String = "", due: Day? = nil, closed: Bool = false) {
        self.id = id
        self.title = title
        self.description = description
        self.due = due
        self.closed = closed
    }
}

/// How far a milestone has come: done cards out of all its unarchived cards.
public struct MilestoneProgress: Hashable, Sendable, Codable {
    /// Cards that are closed or in the board's last column.
    public var done: Int
    /// Unarchived cards in the milestone.
    public var total: Int

    /// Makes a progress figure.
    public init(done: Int, total: Int) {
        self.done = done
        self.total = total
    }

    /// Done as a whole percentage, 0 when the milestone has no cards.
    public var percent: Int { total == 0 ? 0 : done * 100 / total }
}
