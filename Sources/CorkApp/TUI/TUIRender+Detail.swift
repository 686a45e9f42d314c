import BoardClient
import BoardCore
import TerminalUI

extension TUIModel {
    /// The card detail: the card in full when it fits; in a small terminal each part gets what rows are left, the
    /// selected checklist item always among them, and what is left out is counted (``DetailSection``).
    func renderDetail(_ id: CardID, into screen: inout ScreenBuffer) {
        guard let board, let card = board.cards[id] else { return }
        let footer: OverlayLine = ("c comment · E edit the description · Esc close", Style(attributes: .dim))
        // Inside the box (at most height - 2 rows, from row 1), above the footer.
        let room = max(1, height - 5)
        let body = DetailSection.layout(detailSections(card, board: board), rows: room)
        // A blank row before the footer when there is room for it.
        let boxHeight = min(height - 2, body.count + (body.count < room ? 4 : 3))
        let boxWidth = detailBoxWidth
        let rect = Rect(x: max(0, (width - boxWidth + 1) / 2), y: 1, width: boxWidth, height: boxHeight)
        screen.fill(rect)
        screen.drawBox(rect, title: " card ")
        for (n, line) in body.enumerated() {
            // A line longer than the box (a history sentence) ends in `…`.
            let text = DisplayWidth.truncate(line.text, to: boxWidth - 4)
            screen.write(text, x: rect.x + 2, y: rect.y + 1 + n, style: line.style, maxWidth: boxWidth - 4)
        }
        screen.write(footer.text, x: rect.x + 2, y: rect.y + boxHeight - 2, style: footer.style, maxWidth: boxWidth - 4)
    }

    /// The width of the card detail's box (its text is 4 columns narrower): the terminal's, up to 100 columns.
    var detailBoxWidth: Int { min(width - 1, 100) }

    /// The parts of the card detail, top to bottom. When rows are short the comments give theirs up first, then the
    /// description, then the history (down to its heading and newest line), then the checklist (never its selected
    /// item).
    func detailSections(_ card: Card, board: Board) -> [DetailSection] {
        var facts = [board.column(card.column)?.name ?? card.column.rawValue, card.closed ? "closed" : "open"]
        if card.archived { facts.append("archived") }
        if let due = card.due { facts.append("due \(due)\(isOverdue(card) ? " (overdue)" : "")") }
        if !card.labels.isEmpty { facts.append("labels " + card.labels.compactMap { board.label($0)?.name }.joined(separator: ", ")) }
        if !card.assignees.isEmpty { facts.append("assigned " + card.assignees.map(\.rawValue).joined(separator: ", ")) }
        if let ref = card.ref { facts.append("ref \(ref)") }
        if let milestone = card.milestone { facts.append("milestone \(board.milestone(milestone)?.title ?? milestone.rawValue)") }
        // Every text is wrapped to the box, so a long title, description line or comment shows whole when there is
        // room; when rows are short, what is left out is counted in rows.
        let textWidth = max(1, detailBoxWidth - 4)
        func wrapped(_ text: String, _ style: Style) -> [OverlayLine] {
            DisplayWidth.wrap(text, width: textWidth, indent: 2).map { ($0, style) }
        }
        let description = card.description.isEmpty
            ? []
            : card.description.split(separator: "\n", omittingEmptySubsequences: false)
                .flatMap { DisplayWidth.wrap(String($0), width: textWidth) }
        let comments = card.comments.flatMap { DisplayWidth.wrap("\($0.author): \($0.text)", width: textWidth, indent: 2) }
        let history = historyCount(of: card)
        return [
            .fixed(wrapped("#\(card.number) \(card.title)", Style(attributes: .bold)), floor: 1, hardFloor: 1, shrinkRank: 5, gapBefore: false),
            .fixed(wrapped(facts.joined(separator: " · "), Style(foreground: .ansi(.cyan))), floor: 1, hardFloor: 0, shrinkRank: 3, gapBefore: false),
            .fixed(dependencyLines(card, board: board), floor: 1, hardFloor: 1, shrinkRank: 3, gapBefore: false),
            .fixed(recurrenceLines(card), floor: 2, hardFloor: 0, shrinkRank: 3, gapBefore: false),
            DetailSection(
                full: description.count, floor: min(1, description.count), hardFloor: 0, shrinkRank: 1, gapBefore: true,
                lines: { rows in
                    TUIModel.head(description, rows: rows, style: Style()) { "… \($0) more row\($0 == 1 ? "" : "s") of the description (E opens it)" }
                }),
            DetailSection(
                full: card.checklist.count + 2, floor: min(card.checklist.count, 3) + 1, hardFloor: min(card.checklist.count, 1) + 1,
                shrinkRank: 4, gapBefore: true, lines: { checklistLines(card, rows: $0) }),
            DetailSection(
                full: comments.count, floor: min(1, comments.count), hardFloor: 0, shrinkRank: 0, gapBefore: true,
                lines: { rows in
                    TUIModel.tail(comments, rows: rows, style: Style(foreground: .ansi(.green))) { "… \($0) earlier row\($0 == 1 ? "" : "s") of comments not shown" }
                }),
            DetailSection(
                full: history, floor: min(2, history), hardFloor: 0, shrinkRank: 2, gapBefore: true,
                lines: { historyLines(of: card, board: board, rows: $0) }),
        ]
    }

    /// What the card waits for and what waits for it, each list wrapped to the box: "Blocked by: #2 Fix login" (the
    /// blockers still pending, ``Board/blockers(of:)``), "Blocked by (done): ✓ #4 …" (those in `blocked_by` that are
    /// done; archived or purged ones are left out), "Blocks: #7 …" (the open cards that name it, done ones with `✓`).
    /// No lines when it has no dependencies.
    func dependencyLines(_ card: Card, board: Board) -> [OverlayLine] {
        let pending = board.blockers(of: card)
        let waitingFor = Set(pending.map(\.id))
        let done = card.blockedBy.compactMap { board.cards[$0] }
            .filter { !$0.archived && !waitingFor.contains($0.id) }
            .sorted { $0.number < $1.number }
        let blocks = board.blocked(by: card.id)
        func name(_ other: Card) -> String {
            "\(board.isDone(other) ? "✓ " : "")#\(other.number) \(other.title)"
        }
        let textWidth = max(1, detailBoxWidth - 4)
        func wrapped(_ text: String, _ style: Style) -> [OverlayLine] {
            DisplayWidth.wrap(text, width: textWidth, indent: 2).map { ($0, style) }
        }
        var lines: [OverlayLine] = []
        if !pending.isEmpty {
            lines += wrapped(
                TUIModel.blockedMark + "Blocked by: " + pending.map(name).joined(separator: ", "),
                Style(foreground: .ansi(.red), attributes: .bold))
        }
        if !done.isEmpty {
            lines += wrapped("Blocked by (done): " + done.map(name).joined(separator: ", "), Style(foreground: .ansi(.green)))
        }
        if !blocks.isEmpty {
            lines += wrapped("Blocks: " + blocks.map(name).joined(separator: ", "), Style(foreground: .ansi(.yellow)))
        }
        return lines
    }

    /// How the card comes back once done ("Recurs: every week on mon, thu") and who pressed watch on it ("Watched by:
    /// @ci"), each wrapped to the box; no lines for a card that does not recur and that nobody watches.
    func recurrenceLines(_ card: Card) -> [OverlayLine] {
        let textWidth = max(1, detailBoxWidth - 4)
        let style = Style(foreground: .ansi(.cyan))
        var lines: [OverlayLine] = []
        if let recur = card.recur {
            lines += DisplayWidth.wrap("Recurs: \(recur)", width: textWidth, indent: 2).map { ($0, style) }
        }
        if !card.watchers.isEmpty {
            let watchers = card.watchers.map { "@" + $0.rawValue }.joined(separator: ", ")
            lines += DisplayWidth.wrap("Watched by: " + watchers, width: textWidth, indent: 2).map { ($0, style) }
        }
        return lines
    }

    /// The checklist in `rows` rows: its heading, the items around the selected one with a row for each run of hidden
    /// ones ("… 3 more items"), and the keys when there is room.
    func checklistLines(_ card: Card, rows: Int) -> [OverlayLine] {
        let items = card.checklist
        var heading = "checklist " + (TUIModel.checklistProgress(card) ?? "(empty)")
        let hint: OverlayLine = ("a add item · Space tick · J/K move · x remove", Style(attributes: .dim))
        let selectedIndex = max(0, min(items.count - 1, overlayRow))
        let window = DetailSection.window(count: items.count, selected: selectedIndex, rows: rows - 1)
        if window.items.count < items.count { heading += " · item \(selectedIndex + 1) of \(items.count)" }
        var lines: [OverlayLine] = [(heading, Style(attributes: .bold))]
        let dim = Style(attributes: .dim)
        if window.above { lines.append(("… \(window.items.lowerBound) more item\(window.items.lowerBound == 1 ? "" : "s") above", dim)) }
        for index in window.items {
            let item = items[index]
            let selected = index == selectedIndex
            lines.append(((selected ? "▸ " : "  ") + "[\(item.done ? "x" : " ")] \(item.text)",
                Style(attributes: selected ? .reverse : item.done ? .dim : [])))
        }
        let below = items.count - window.items.upperBound
        if window.below { lines.append(("… \(below) more item\(below == 1 ? "" : "s")", dim)) }
        if lines.count < rows { lines.append(hint) }
        return lines
    }

    /// How many rows the detail's history wants: a heading and the newest records (at most ``CardHistory/shownMax``).
    func historyCount(of card: Card) -> Int {
        guard let history, history.card == card.id else { return 1 }
        guard case .loaded(let activities, _) = history.state else { return 2 }
        return 1 + max(1, min(CardHistory.shownMax, activities.count))
    }

    /// The detail's history in `rows` rows: a heading saying how many records are not shown, then one feed sentence
    /// per record, newest last.
    func historyLines(of card: Card, board: Board, rows: Int) -> [OverlayLine] {
        let heading = Style(attributes: .bold)
        let dim = Style(attributes: .dim)
        guard let history, history.card == card.id else { return [("history", heading)] }
        switch history.state {
        case .loading:
            return rows >= 2 ? [("history", heading), ("loading…", dim)] : [("history loading…", heading)]
        case .failed(let reason):
            return [("history", heading), ("unavailable: \(reason)", Style(foreground: .ansi(.red)))]
        case .loaded(let activities, let more):
            let shown = activities.suffix(max(0, min(CardHistory.shownMax, rows - 1)))
            let older = activities.count - shown.count
            var title = "history"
            if older > 0 || more {
                let count = older > 0 ? "\(older)\(more ? "+" : "") " : ""
                title += " (\(count)\(shown.isEmpty ? "" : "older ")not shown)"
            }
            var lines: [OverlayLine] = [(title, heading)]
            if activities.isEmpty { lines.append(("no changes recorded", dim)) }
            for activity in shown {
                lines.append((FeedSentence.render(activity, after: board), Style(foreground: .ansi(.brightBlack))))
            }
            return lines
        }
    }

    /// The first of `lines` (in `style`) that fit in `rows`; when not all do, the last row says how many are left out,
    /// in `more`'s words.
    static func head(_ lines: [String], rows: Int, style: Style, more: (Int) -> String) -> [OverlayLine] {
        guard rows < lines.count else { return lines.map { ($0, style) } }
        guard rows > 0 else { return [] }
        return lines.prefix(rows - 1).map { ($0, style) } + [(more(lines.count - rows + 1), Style(attributes: .dim))]
    }

    /// The last of `lines` (in `style`) that fit in `rows`; when not all do, the first row says how many are left
    /// out, in `older`'s words.
    static func tail(_ lines: [String], rows: Int, style: Style, older: (Int) -> String) -> [OverlayLine] {
        guard rows < lines.count else { return lines.map { ($0, style) } }
        guard rows > 0 else { return [] }
        return [(older(lines.count - rows + 1), Style(attributes: .dim))] + lines.suffix(rows - 1).map { ($0, style) }
    }
}
