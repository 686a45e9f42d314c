/// What a member may do on a board.
public enum Role: String, Hashable, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// Everything, including members, the board's name and purging cards.
    case owner
    /// Cards, columns, labels, milestones, comments and chat.
    case editor
    /// Reads the board and chats; cannot edit.
    case viewer
    /// Automation: cards, labels, milestones, comments and chat; never members or columns.
    case bot

    /// The role's name on the wire.
    public var description: String { rawValue }
}

/// A person or bot with a role on a board.
public struct Member: Hashable, Sendable, Codable, Identifiable {
    /// The user name.
    public var id: UserID
    /// The member's role on this board.
    public var role: Role
    /// A display name; empty means "use the user name".
    public var name: String

    /// Makes a member.
    public init(id: UserID, role: Role, name: String = "") {
        self.id = id
        self.role = role
        self.name = name
    }
}
