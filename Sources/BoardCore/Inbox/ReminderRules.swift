/// Reminders: a card due soon or overdue tells its watchers (creator and assignees), once per threshold.
///
/// Days are UTC days. A card due on day D is due soon from D 00:00 minus the board's lead time (`board.remind`;
/// the server's default, 24 h, so from the start of the day before) until D ends, and overdue from D + 1 00:00 on, while it is open: not closed, not archived
/// and not in the last column. Each reminder's key is the card, its due day and the threshold, so scanning again
/// (every minute, after a restart, on another node) never tells anyone twice, and moving the due date reminds again.
public enum ReminderRules {
    /// Who reminders name as their actor.
    public static let actor: UserID = "corkd"

    /// The reminders due on `board` at `now`, ids 0; `defaultLeadMs` for a board that did not set its own.
    public static func entries(board: Board, now: Timestamp, defaultLeadMs: Int64 = 86_400_000) -> [InboxEntry] {
        let leadMs = board.remindHours.map { Int64($0) * 3_600_000 } ?? defaultLeadMs
        var entries: [InboxEntry] = []
        for card in board.cards.values.sorted(by: { $0.number < $1.number }) {
            guard let due = card.due, !card.archived, !board.isDone(card) else { continue }
            let start = Int64(due.daysSinceEpoch) * 86_400_000
            let end = start + 86_400_000
            let kind: InboxEntry.Kind
            let text: String
            if now.milliseconds >= end {
                kind = .overdue
                text = "#\(card.number) \"\(card.title)\" is overdue (due \(due))"
            } else if now.milliseconds >= start - leadMs {
                kind = .dueSoon
                text = "#\(card.number) \"\(card.title)\" is due " + (now.milliseconds >= start ? "today" : "\(due)")
            } else {
                continue
            }
            for user in InboxRules.watchers(of: card) where board.members[user] != nil {
                entries.append(
                    InboxEntry(
                        user: user, board: board.id, seq: board.seq, card: card.id, kind: kind, actor: actor, at: now,
                        text: InboxRules.clip(text),
                        key: "\(user)|\(board.id)|\(kind.rawValue)|\(card.id)|\(due)"))
            }
        }
        return entries
    }
}
