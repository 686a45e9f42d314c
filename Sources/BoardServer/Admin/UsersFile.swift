import BoardCore

/// `corkd invite --users-file`: one invite per line, `USER [ROLE [BOARD[,BOARD…]]]`, separated by spaces or tabs.
///
/// ROLE and BOARD default to the command's `--role` and `--board`; `#` starts a comment; blank lines are skipped.
/// A user may be on several lines (several boards, each line its own token), but not twice for the same board.
/// Everything is checked before anything is changed: one bad line and nothing is applied.
public enum UsersFile {
    /// One invite.
    public struct Entry: Hashable, Sendable {
        /// The line it came from (1-based).
        public var line: Int
        /// The user to create (if new) and give a token.
        public var user: UserID
        /// The role on each board.
        public var role: Role
        /// The boards to join; the URL names the first.
        public var boards: [BoardID]

        /// Makes an entry.
        public init(line: Int, user: UserID, role: Role, boards: [BoardID]) {
            self.line = line
            self.user = user
            self.role = role
            self.boards = boards
        }
    }

    /// A line that is not an invite.
    public struct ParseError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The line (1-based).
        public var line: Int
        /// What is wrong with it.
        public var message: String

        public var description: String { "line \(line): \(message)" }
    }

    /// The entries of `text`, or the first line that is wrong.
    public static func parse(_ text: String, role defaultRole: Role, board defaultBoard: BoardID) throws(ParseError) -> [Entry] {
        var entries: [Entry] = []
        var seen: [String: Int] = [:]
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            let content = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let fields = content.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            if fields.isEmpty { continue }
            guard fields.count <= 3 else {
                throw ParseError(line: number, message: "expected USER [ROLE [BOARD[,BOARD…]]], got \(fields.count) fields")
            }
            guard let user = UserID(validating: String(fields[0])) else {
                throw ParseError(line: number, message: "\(fields[0]) is not a user name (1–64 of A–Z a–z 0–9 _ . -)")
            }
            var role = defaultRole
            if fields.count > 1 {
                guard let parsed = Role(rawValue: String(fields[1])) else {
                    throw ParseError(line: number, message: "\(fields[1]) is not a role (owner, editor, viewer or bot)")
                }
                role = parsed
            }
            var boards = [defaultBoard]
            if fields.count > 2 {
                boards = []
                for name in fields[2].split(separator: ",", omittingEmptySubsequences: false) {
                    guard let board = BoardID(validating: String(name)) else {
                        throw ParseError(line: number, message: "\(name.isEmpty ? "an empty name" : String(name)) is not a board id")
                    }
                    boards.append(board)
                }
            }
            for board in boards {
                let key = "\(user)\u{0}\(board)"
                if let earlier = seen[key] {
                    throw ParseError(line: number, message: "\(user) is invited to \(board) on line \(earlier) already")
                }
                seen[key] = number
            }
            entries.append(Entry(line: number, user: user, role: role, boards: boards))
        }
        return entries
    }
}
