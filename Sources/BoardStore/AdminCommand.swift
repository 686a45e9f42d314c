import BoardCore

/// A command that `corkd invite`/`corkd revoke` leave in the store for the running server to apply.
///
/// The server is the only writer of events, so a tool that runs beside it queues what it wants done; the server
/// polls `pendingCommands(after:)`, applies each command as an op (or a token revocation) and calls `markDone`.
public enum AdminCommand: Hashable, Sendable, Codable {
    /// Make `user` a member of `board` with `role`.
    case addMember(board: BoardID, user: UserID, role: Role)
    /// Create `board` named `name` with `owner` as its owner.
    case createBoard(board: BoardID, name: String, owner: UserID)
    /// The user's tokens were revoked: close their live sessions.
    case revoke(user: UserID)
}
