/// A comment on a card.
public struct Comment: Hashable, Sendable, Codable, Identifiable {
    /// The comment's identifier.
    public var id: CommentID
    /// Who wrote it.
    public var author: UserID
    /// When it was written.
    public var at: Timestamp
    /// The text (Markdown is left to the reader).
    public var text: String
    /// When it was last edited, if ever.
    public var editedAt: Timestamp?

    /// Makes a comment.
    public init(id: CommentID, author: UserID, at: Timestamp, text: String, editedAt: Timestamp? = nil) {
        self.id = id
        self.author = author
        self.at = at
        self.text = text
        self.editedAt = editedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, author, at, text
        case editedAt = "edited_at"
    }
}

/// One line of a card's checklist.
public struct ChecklistItem: Hashable, Sendable, Codable, Identifiable {
    /// The item's identifier.
    public var id: ChecklistItemID
    /// What is to be done.
    public var text: String
    /// Whether it is done.
    public var done: Bool

    /// Makes a checklist item.
    public init(id: ChecklistItemID, text: String, done: Bool = false) {
        self.id = id
        self.text = text
        self.done = done
    }
}
