import BoardCore

/// A command that `corkd invite`, `corkd revoke` and `corkd board` leave in the store for the running server to
/// apply.
///
/// The server is the only writer of events, so a tool that runs beside it queues what it wants done; the server
/// polls `pendingCommands(after:)`, applies each command as an op (or a token revocation, or a change to the board
/// list) and records the outcome with `finish(_:)`, which the tool waits for. When no server runs, the tool applies
/// the same commands to the store itself.
public enum AdminCommand: Hashable, Sendable, Codable {
    /// Make `user` a member of `board` with `role`.
    case addMember(board: BoardID, user: UserID, role: Role)
    /// Create `board` named `name` with `owner` as its owner.
    case createBoard(board: BoardID, name: String, owner: UserID)
    /// The user's tokens were revoked: close their live sessions.
    case revoke(user: UserID)
    /// Rename `board` (a `board.rename` op by `corkd`).
    case renameBoard(board: BoardID, name: String)
    /// Archive `board`: it leaves the board list, its subscribers get `not_found`, its data is kept.
    case archiveBoard(board: BoardID)
    /// Bring an archived board back.
    case unarchiveBoard(board: BoardID)

    /// The board the command is about, if any.
    public var board: BoardID? {
        switch self {
        case .addMember(let board, _, _), .createBoard(let board, _, _), .renameBoard(let board, _),
            .archiveBoard(let board), .unarchiveBoard(let board):
            board
        case .revoke:
            nil
        }
    }
}

/// Why an admin command was not applied, as the server (or the tool, when no server runs) recorded it.
public struct AdminFailure: Error, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The kinds of failure, each with its own `corkd` exit code.
    public enum Code: String, Hashable, Sendable, Codable {
        /// The board (or user) named does not exist, or is archived (exit 5).
        case notFound = "not_found"
        /// The board refused the change: a limit, the last owner, a name in use (exit 3).
        case refused
        /// Anything else: the store, a timeout (exit 1).
        case failed
    }

    /// What kind of failure.
    public var code: Code
    /// A sentence for the operator.
    public var message: String

    /// Makes a failure.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}

/// Where a queued admin command stands.
public enum AdminOutcome: Hashable, Sendable {
    /// Not applied yet (the server has not got to it).
    case pending
    /// Applied.
    case done
    /// Not applied, and why.
    case failed(AdminFailure)

    /// Why it was not applied, or nil (applied or pending).
    public var failure: AdminFailure? {
        if case .failed(let failure) = self { return failure }
        return nil
    }
}
