import BoardClient
import BoardCore
import TerminalUI

/// The user's inbox in the full-screen client, as far as this client knows it: the count for the status line, and
/// the entries the inbox view lists.
public struct InboxState: Hashable, Sendable {
    /// Whether the server offers the inbox (`inbox` in its welcome's features; the runner sets it).
    public var available = false
    /// Unread entries in the whole inbox as the server last said (a page, a new entry, a read), lowered at once by
    /// what this client marks read; nil until known.
    public var unread: Int?
    /// The entries known, newest first: the last page read, and those that arrived since (at most ``kept``).
    public var entries: [InboxEntry] = []
    /// Entries the inbox view marked read since it opened: still shown as new while it is open.
    public var fresh: Set<Int64> = []
    /// A page was asked for and has not come yet.
    public var loading = false
    /// Why the last page could not be read, until one is.
    public var failure: String?

    /// The most entries kept.
    public static let kept = 200

    /// An inbox not known yet.
    public init() {}

    /// Adds `entry` (or replaces the entry with its id), keeping the entries newest first.
    mutating func insert(_ entry: InboxEntry) {
        entries.removeAll { $0.id == entry.id }
        let at = entries.firstIndex { $0.id < entry.id } ?? entries.count
        entries.insert(entry, at: at)
        if entries.count > InboxState.kept { entries.removeLast(entries.count - InboxState.kept) }
    }

    /// Marks the entries `ids` read.
    mutating func markRead(_ ids: Set<Int64>) {
        for index in entries.indices where ids.contains(entries[index].id) { entries[index].read = true }
    }
}

extension TUIModel {
    /// The entries one inbox page asks for (the view lists them).
    public static let inboxPageSize = 50

    /// What the status line shows of the inbox: `✉ 3` while entries are unread, else nothing.
    public var inboxStatus: String? {
        guard let unread = inbox.unread, unread > 0 else { return nil }
        return "✉ \(unread)"
    }

    /// A new entry or a read, from the server.
    mutating func inboxEvent(_ event: InboxEvent) -> [TUIEffect] {
        switch event {
        case .entry(var entry, let unread):
            inbox.unread = unread
            var effects: [TUIEffect] = []
            let sentence = InboxText.sentence(entry, on: board)
            let viewing = overlay == .inbox
            if viewing, !entry.read {
                // Shown as it arrives, so read.
                entry.read = true
                inbox.fresh.insert(entry.id)
                inbox.unread = max(0, unread - 1)
                effects.append(.markInboxRead([entry.id]))
            }
            let wasEmpty = inbox.entries.isEmpty
            inbox.insert(entry)
            // The selection stays on the entry it was on.
            if viewing, !wasEmpty, let at = inbox.entries.firstIndex(where: { $0.id == entry.id }), at <= overlayRow {
                overlayRow = min(overlayRow + 1, inbox.entries.count - 1)
            }
            post(FeedEntry("✉ " + sentence, kind: .inbox))
            switch notify {
            case .on: effects.append(.notify(terminalNotification.sequence(sentence)))
            case .bell: effects.append(.notify(TerminalNotification.bell.sequence(sentence)))
            case .off: break
            }
            return effects
        case .read(let ids, let unread):
            inbox.unread = unread
            inbox.markRead(Set(ids))
            return []
        }
    }

    /// A page of the inbox arrived. While the view is open, the entries it lists are read now.
    mutating func inboxPage(_ entries: [InboxEntry], unread: Int) -> [TUIEffect] {
        inbox.loading = false
        inbox.failure = nil
        inbox.unread = unread
        inbox.entries = []
        for entry in entries { inbox.insert(entry) }
        guard overlay == .inbox else { return [] }
        overlayRow = max(0, min(overlayRow, inbox.entries.count - 1))
        return markShownRead()
    }

    /// The inbox could not be read (or marked): the view says why; with the view closed, the feed does.
    mutating func inboxFailed(_ reason: String) -> [TUIEffect] {
        inbox.loading = false
        inbox.failure = reason
        if overlay != .inbox { post(FeedEntry("inbox: \(reason)", kind: .error)) }
        return []
    }

    /// `I`, `/inbox`: the inbox view, refreshed from the server; what it lists is marked read.
    mutating func openInbox() -> [TUIEffect] {
        guard inbox.available else {
            notice = "this server has no inbox (it needs a newer corkd)"
            return []
        }
        overlay = .inbox
        focus = .board
        overlayRow = 0
        inbox.fresh = []
        inbox.loading = true
        inbox.failure = nil
        // The entries known are shown at once and the page asked for replaces them; only the page's entries, which
        // the view then lists, are marked read (entries known from before may be older than the page reaches).
        return [.fetchInbox]
    }

    /// Marks read the unread entries the view shows on screen (they stay marked new while it is open); those below
    /// the fold are marked as scrolling brings them into view, so a small window does not mark unseen ones read.
    mutating func markShownRead() -> [TUIEffect] {
        let shown = listWindow(rows: inbox.entries.count, headingLines: 1)
        let ids = inbox.entries[shown].filter { !$0.read }.map(\.id)
        guard !ids.isEmpty else { return [] }
        inbox.fresh.formUnion(ids)
        inbox.markRead(Set(ids))
        if let unread = inbox.unread { inbox.unread = max(0, unread - ids.count) }
        return [.markInboxRead(ids)]
    }

    /// A key in the inbox view: Enter goes to the entry's card when it is on this board.
    mutating func inboxKey(_ event: KeyEvent) -> [TUIEffect] {
        let rows = inbox.entries
        switch event.key {
        case .escape, .character("q"):
            inbox.fresh = []
            return closeOverlay()
        case .enter:
            guard rows.indices.contains(overlayRow) else { return [] }
            return goToInboxEntry(rows[overlayRow])
        default:
            _ = moveOverlayRow(event, count: rows.count)
            return markShownRead()
        }
    }

    /// Enter on an entry: its card's detail, the card selected on the board; or where it is, when that is not here.
    mutating func goToInboxEntry(_ entry: InboxEntry) -> [TUIEffect] {
        guard entry.board == boardID else {
            notice = "that is on board \(entry.board): /board \(entry.board) goes there"
            return []
        }
        guard let id = entry.card else {
            inbox.fresh = []
            overlay = nil
            overlayRow = 0
            notice = "a chat line: it is in the feed (/lastlog finds it)"
            return presenceViewing()
        }
        guard let card = board?.cards[id] else {
            notice = "that card is no longer on the board"
            return []
        }
        inbox.fresh = []
        if card.archived {
            notice = "#\(card.number) is archived (/restore #\(card.number) brings it back)"
        } else if !select(card: id) {
            notice = "#\(card.number) is hidden by the filter (/filter clears it)"
        }
        onHeader = false
        overlay = .detail(id)
        overlayRow = 0
        history = CardHistory(card: id)
        return [.presence(.viewing, card: id), .fetchHistory(id)]
    }

    /// The inbox view: each entry with `•` while new, when, and what happened.
    func renderInbox(into screen: inout ScreenBuffer) {
        let lines: [OverlayLine] = inbox.entries.map { entry in
            let new = !entry.read || inbox.fresh.contains(entry.id)
            let text = "\(new ? InboxText.unreadMark : " ") \(InboxText.shortTime(entry.at, today: today)) "
                + InboxText.sentence(entry, on: board)
            return (text, Style(attributes: new ? .bold : []))
        }
        let newCount = inbox.entries.filter { !$0.read || inbox.fresh.contains($0.id) }.count
        var heading = newCount == 0 ? "nothing new" : "\(newCount) new"
        heading += " · all your boards, newest first, times in UTC"
        if inbox.loading { heading += " · reading…" }
        let empty: String
        if let failure = inbox.failure {
            empty = "the inbox could not be read: \(failure)"
        } else {
            empty = inbox.loading ? "reading the inbox…" : "your inbox is empty"
        }
        // The view lists one page; a full one may have older entries behind it, which the command line lists.
        var footer = "Enter go to the card · Esc close"
        if inbox.entries.count >= TUIModel.inboxPageSize, let oldest = inbox.entries.last?.id {
            let olderUnread = inbox.unread ?? 0
            footer += olderUnread > 0
                ? " · \(olderUnread) older unread: cork inbox --unread --before \(oldest)" : " · older: cork inbox --before \(oldest)"
        }
        renderList(
            title: "inbox", heading: [(heading, Style(foreground: .ansi(.cyan)))], rows: lines, empty: empty,
            footer: footer, into: &screen)
    }
}

extension InboxText {
    /// When, shortly: `10:41` today, `11-29 10:41` before.
    static func shortTime(_ at: Timestamp, today: Day) -> String {
        let full = time(at)
        if at.day == today { return String(full.suffix(5)) }
        return String(full.dropFirst(5))
    }
}
