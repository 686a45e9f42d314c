import BoardClient
import BoardCore

/// Inbox entries as text for people: `cork inbox`'s lines, and the full-screen client's feed line, inbox view and
/// terminal notification.
///
/// The sentence is `ACTOR VERB PLACE: DETAIL`, e.g. `bob mentioned you on main #3: "Ship it": @alice can you look?`
/// (a due-date reminder: `reminder for PLACE: DETAIL`).
/// PLACE is the board and the card: its number (`main #3`, `ops #7`: from the board at hand when it is the entry's,
/// else from the server's text, which starts with it), the card's id when neither gives one (`ops id:k7`, an entry
/// written before the texts named the card), or the board alone for a chat mention. DETAIL is the server's one-line
/// text without what PLACE and the verb already say (its leading `#3 `, `assigned you to `, `moved `).
public enum InboxText {
    /// `entry`'s card as `#N` when `board` is its board and holds the card, else nil.
    public static func cardNumber(_ entry: InboxEntry, on board: Board?) -> Int? {
        guard let board, board.id == entry.board, let card = entry.card else { return nil }
        return board.cards[card]?.number
    }

    /// Where the entry is: `main #3`, `ops id:k7`, or `main` (no card).
    public static func place(_ entry: InboxEntry, on board: Board?) -> String {
        guard let card = entry.card else { return entry.board.rawValue }
        if let number = number(entry, on: board) { return "\(entry.board) #\(number)" }
        return "\(entry.board) id:\(card)"
    }

    /// The card's number: from `board` when it is the entry's and holds the card, else the `#N ` the server's text
    /// starts with (after the verb's lead), nil when neither says.
    static func number(_ entry: InboxEntry, on board: Board?) -> Int? {
        if let number = cardNumber(entry, on: board) { return number }
        guard entry.card != nil else { return nil }
        let text = withoutLead(entry)
        guard text.hasPrefix("#") else { return nil }
        let digits = text.dropFirst().prefix(while: { $0.isASCII && $0.isNumber })
        guard !digits.isEmpty, text.dropFirst(1 + digits.count).hasPrefix(" ") else { return nil }
        return Int(digits)
    }

    /// The entry's text on one line, without the verb's lead (`assigned you to `, `moved `).
    static func withoutLead(_ entry: InboxEntry) -> Substring {
        let text = Substring(FeedText.oneLine(entry.text))
        let lead: String? =
            switch entry.kind {
            case .assigned: "assigned you to "
            case .moved: "moved "
            default: nil
            }
        if let lead, text.hasPrefix(lead) { return text.dropFirst(lead.count) }
        return text
    }

    /// What the actor did, before the place; a kind this version does not know (a newer server's) says only where
    /// (`bob on main #3: …`), and the text says what.
    static func verb(_ kind: InboxEntry.Kind) -> String {
        switch kind {
        case .mention: "mentioned you on"
        case .assigned: "assigned you to"
        case .comment: "commented on"
        case .moved: "moved"
        case .unblocked: "unblocked"
        default: "on"
        }
    }

    /// The entry's text, on one line, without what the sentence's verb and place already say.
    static func detail(_ entry: InboxEntry, on board: Board?) -> String {
        var text = withoutLead(entry)
        if let number = number(entry, on: board), text.hasPrefix("#\(number) ") {
            text = text.dropFirst("#\(number) ".count)
        }
        return String(text)
    }

    /// The sentence: `bob mentioned you on main #3: "Ship it": @alice can you look?`; a due-date reminder, which no
    /// person made, `reminder for main #3: "Ship it" is overdue (due 2026-11-20)`.
    public static func sentence(_ entry: InboxEntry, on board: Board?) -> String {
        let isReminder = entry.kind == .dueSoon || entry.kind == .overdue
        let head =
            isReminder
            ? "reminder for \(place(entry, on: board))"
            : "\(FeedText.oneLine(entry.actor.rawValue)) \(verb(entry.kind)) \(place(entry, on: board))"
        let detail = detail(entry, on: board)
        return detail.isEmpty ? head : "\(head): \(detail)"
    }

    /// When, in UTC to the minute: `2026-11-29 10:41`.
    public static func time(_ at: Timestamp) -> String {
        let ms = at.milliseconds
        let minuteOfDay = Int((((ms % 86_400_000) + 86_400_000) % 86_400_000) / 60_000)
        func pad(_ v: Int) -> String { v < 10 ? "0\(v)" : String(v) }
        return "\(at.day) \(pad(minuteOfDay / 60)):\(pad(minuteOfDay % 60))"
    }

    /// The mark of an unread entry (a read one has a space).
    public static let unreadMark = "•"

    /// One line of `cork inbox`: the id (right-aligned in `idWidth`), `•` when unread, the time (UTC, as every time
    /// and day cork shows: a due date is overdue by the UTC day) and the sentence.
    public static func line(_ entry: InboxEntry, on board: Board?, idWidth: Int = 4) -> String {
        let id = String(entry.id)
        let padded = String(repeating: " ", count: max(0, idWidth - id.count)) + id
        return "\(padded) \(entry.read ? " " : unreadMark) \(time(entry.at)) UTC \(sentence(entry, on: board))"
    }

    /// `cork inbox`'s output: the entries newest first, one line each (ids aligned), or a line saying there are
    /// none.
    public static func list(_ entries: [InboxEntry], on board: Board?, unreadOnly: Bool) -> String {
        if entries.isEmpty { return unreadOnly ? "no unread entries in your inbox\n" : "your inbox is empty\n" }
        let newestFirst = entries.sorted { $0.id > $1.id }
        let width = max(4, newestFirst.map { String($0.id).count }.max() ?? 0)
        return newestFirst.map { line($0, on: board, idWidth: width) }.joined(separator: "\n") + "\n"
    }
}

extension CorkJSON {
    /// `cork inbox --json`: `{"entries":[…],"unread":N,"more":B}`, the entries newest first in the protocol's
    /// shape (Protocol.md, "inbox"), how many entries of the whole inbox are unread, and whether older entries than
    /// these are left (`--before` the last one's id lists them).
    public struct Inbox: Encodable, Sendable {
        /// The entries, newest first.
        public var entries: [InboxEntry]
        /// Unread entries in the whole inbox.
        public var unread: Int
        /// Whether entries older than the last listed are left.
        public var more: Bool

        /// Makes a result.
        public init(entries: [InboxEntry], unread: Int, more: Bool = false) {
            self.entries = entries
            self.unread = unread
            self.more = more
        }
    }
}
