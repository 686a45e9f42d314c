import BoardCore

/// A board's members for `cork board members`: owners first, then editors, bots and viewers, each by user id.
public enum MemberList {
    /// The members of `board`, each marked online when `online` (the users present on the board) is known.
    public static func rows(_ board: Board, online: Set<UserID>?) -> [CorkJSON.MemberRow] {
        let order: [Role] = [.owner, .editor, .bot, .viewer]
        return board.members.values
            .sorted { (order.firstIndex(of: $0.role) ?? 9, $0.id.rawValue) < (order.firstIndex(of: $1.role) ?? 9, $1.id.rawValue) }
            .map { member in
                CorkJSON.MemberRow(
                    user: member.id, name: member.name, role: member.role, online: online.map { $0.contains(member.id) })
            }
    }

    /// `alice  Alice  owner  online`, one line per member (the name column only when someone has a name).
    public static func text(_ rows: [CorkJSON.MemberRow]) -> String {
        if rows.isEmpty { return "no members\n" }
        let idWidth = rows.map(\.user.rawValue.count).max() ?? 0
        let names = rows.map { FeedText.oneLine($0.name) }
        let nameWidth = names.map(\.count).max() ?? 0
        return zip(rows, names).map { row, name in
            var line = row.user.rawValue.padded(to: idWidth)
            if nameWidth > 0 { line += "  " + name.padded(to: nameWidth) }
            line += "  " + row.role.rawValue.padded(to: 6)
            if row.online == true { line += "  online" }
            return line.trimmingSpaces
        }.joined(separator: "\n") + "\n"
    }
}

extension String {
    /// The text with spaces added up to `width` characters.
    func padded(to width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
