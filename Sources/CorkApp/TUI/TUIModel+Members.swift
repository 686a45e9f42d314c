import BoardCore
import TerminalUI

extension TUIModel {
    /// `/members`: who is on the board, with roles and who is online.
    mutating func openMembers() -> [TUIEffect] {
        overlay = .members
        focus = .board
        overlayRow = 0
        return []
    }

    /// The members as the overlay lists them: by user name, whatever their role, so that a role given with `o`, `e`,
    /// `v` or `b` leaves the member on the selected row (sorted by role, they moved away from the cursor, and the
    /// next key changed someone else's role).
    var memberRows: [Member] {
        (board?.members.values.map { $0 } ?? []).sorted { $0.id.rawValue < $1.id.rawValue }
    }

    /// Whether `user` is online here, and away.
    func onlineState(of user: UserID) -> (online: Bool, away: Bool) {
        let sessions = presence.values.filter { $0.user == user }
        return (!sessions.isEmpty || user == self.user, !sessions.isEmpty && sessions.allSatisfy { $0.away == true })
    }

    /// What `user` said about being away (`/away lunch`), from any of their sessions that is away, cut to a line.
    func awayNote(of user: UserID) -> String? {
        presence.values.filter { $0.user == user && $0.away == true }.compactMap(\.awayNote).sorted().first
            .map { Self.shown(awayNote: $0) }
    }

    /// The keys that give the selected member a role (owners only): `o` owner, `e` editor, `v` viewer, `b` bot.
    static let roleKeys: [Character: Role] = ["o": .owner, "e": .editor, "v": .viewer, "b": .bot]

    /// A key in the members overlay: an owner changes the selected member's role.
    mutating func memberKey(_ event: KeyEvent) -> [TUIEffect] {
        let rows = memberRows
        switch event.key {
        case .escape, .character("q"):
            return closeOverlay()
        case .character(let c) where TUIModel.roleKeys[c] != nil:
            guard let role = TUIModel.roleKeys[c], rows.indices.contains(overlayRow) else { return [] }
            guard user.flatMap({ board?.members[$0]?.role }) == .owner else {
                notice = "only an owner changes roles"
                return []
            }
            let member = rows[overlayRow]
            // Keys faster than their changes come back are compared with the role asked last, not the one shown:
            // `v` then `e` at once ends with editor (the `e` was dropped as "already editor").
            let current = askedRoles[member.id] ?? member.role
            guard current != role else { return [] }
            askedRoles[member.id] = role
            notice = "\(member.id): \(current) → \(role)"
            return [.submit(.setMember(user: member.id, role: role, name: nil))]
        default:
            _ = moveOverlayRow(event, count: rows.count)
            return []
        }
    }
}
