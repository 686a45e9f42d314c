import BoardCore
import BoardStore

extension AdminCommand {
    /// The op the command becomes on its board (by the actor `corkd`), for the commands that are ops.
    var op: Op? {
        switch self {
        case .addMember(_, let user, let role): .setMember(user: user, role: role, name: nil)
        case .renameBoard(_, let name): .renameBoard(name: name)
        case .createBoard, .revoke, .archiveBoard, .unarchiveBoard: nil
        }
    }
}

extension AdminFailure {
    /// The board does not exist, or is archived.
    public static func noBoard(_ board: BoardID, archived: Bool = false) -> AdminFailure {
        archived
            ? AdminFailure(.notFound, "board \(board) is archived (corkd board unarchive \(board) brings it back)")
            : AdminFailure(.notFound, "no board \(board) (corkd board list shows the boards; corkd board create makes one)")
    }

    /// The board's reducer refused the command's op.
    static func refused(_ board: BoardID, _ rejection: Rejection) -> AdminFailure {
        AdminFailure(.refused, "board \(board) refused it: \(rejection)")
    }

    /// The store failed.
    static func store(_ error: StoreError) -> AdminFailure {
        AdminFailure(error.code == .notFound ? .notFound : .failed, "the store: \(error.message)")
    }
}
