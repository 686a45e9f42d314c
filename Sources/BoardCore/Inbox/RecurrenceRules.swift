import Crypto

/// The next occurrence of a recurring card (``Recurrence``), derived from the change that made it done: the ops the
/// server applies as itself to add it. Pure and deterministic: the new card's id and `ref` come from the first
/// card of the series and the new due day, so deriving it again (after a restart, on another node) is refused as a
/// duplicate and never adds a second card.
public enum RecurrenceRules {
    /// The ops that add the next occurrence of the card that `activity` (just applied; `board` is after it) made
    /// done by closing it or moving it to the last column; none when it does not recur. `today` is the day it was done.
    public static func nextOccurrence(after activity: Activity, board: Board, today: Day) -> [Op] {
        guard let id = activity.card, let card = board.cards[id], let rule = card.recur, rule.problem == nil,
            [Op.Kind.cardMove.rawValue, Op.Kind.cardClose.rawValue].contains(activity.kind),
            InboxRules.madeDone(activity, board: board)
        else { return [] }
        let due = rule.next(due: card.due, done: today)
        let series = card.ref.flatMap(seriesOf) ?? digest(card.id.rawValue, 12)
        let ref = "\(refPrefix)\(series):\(due)"
        let newID = CardID("r" + digest(ref, 20))
        var add = AddCard(card: newID, column: board.columns.first?.id, title: card.title, ref: ref)
        add.description = card.description
        add.due = due
        add.labels = card.labels
        add.assignees = card.assignees
        add.milestone = card.milestone
        var ops: [Op] = [.addCard(add), .setRecurrence(card: newID, recurrence: rule)]
        for item in card.checklist {
            ops.append(.addChecklistItem(card: newID, item: item.id, text: item.text, done: false, index: nil))
        }
        return ops
    }

    /// How the ref of an occurrence the server added begins (`recur:SERIES:DAY`).
    public static let refPrefix = "recur:"

    /// The series part of an occurrence's ref (`recur:SERIES:DAY`).
    static func seriesOf(_ ref: String) -> String? {
        let parts = ref.split(separator: ":")
        guard parts.count == 3, parts[0] == "recur" else { return nil }
        return String(parts[1])
    }

    static func digest(_ text: String, _ length: Int) -> String {
        SHA256.hash(data: Array(text.utf8)).prefix(length / 2).map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined()
    }
}
