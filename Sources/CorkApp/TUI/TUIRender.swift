import BoardClient
import BoardCore
import TerminalUI

extension TUIModel {
    /// Rows of the feed pane (its title line included).
    public var feedHeight: Int { max(4, min(12, height / 3)) }
    /// Rows of the board pane.
    public var boardHeight: Int { max(3, height - feedHeight - 2) }
    /// How many cards a column shows at once (two rows each, under the header): a page for PgUp / PgDn.
    public var cardsPerPage: Int { max(1, (boardHeight - 1) / 2) }
    /// The narrowest a column is drawn.
    public static let columnMinWidth = 22

    /// Draws the whole screen. Pure: the same model gives the same buffer.
    public func render() -> ScreenBuffer {
        if let undersized { return TUIModel.tooSmall(undersized) }
        var screen = ScreenBuffer(width: width, height: height)
        renderBoard(into: &screen)
        renderFeed(into: &screen, top: boardHeight)
        renderStatus(into: &screen, y: height - 2)
        renderInput(into: &screen, y: height - 1)
        switch overlay {
        case .help?: renderHelp(into: &screen)
        case .detail(let card)?: renderDetail(card, into: &screen)
        case .milestones?: renderMilestones(into: &screen)
        case .boards?: renderBoards(into: &screen)
        case .members?: renderMembers(into: &screen)
        case .archive?: renderArchive(into: &screen)
        case .inbox?: renderInbox(into: &screen)
        case nil: break
        }
        return screen
    }

    /// A terminal too small for the board: a frame of its own size that asks for more room (a frame of the
    /// minimum size would be drawn past its bottom and right edges).
    static func tooSmall(_ size: TerminalSize) -> ScreenBuffer {
        var screen = ScreenBuffer(width: size.width, height: size.height)
        let minimum = TUIModel.minimumSize
        let text = "window too small: \(minimum.width)×\(minimum.height) at least"
        for (y, row) in wrap(text, width: size.width).prefix(size.height).enumerated() {
            screen.write(row, x: 0, y: y, style: Style(attributes: .bold))
        }
        return screen
    }

    /// How many columns fit side by side, and the first one shown (so the selected one is visible).
    func columnWindow() -> (first: Int, count: Int) {
        let total = columns.count
        guard total > 0 else { return (0, 0) }
        let fit = max(1, min(total, width / TUIModel.columnMinWidth))
        let focusColumn = carry?.column ?? column
        // Derived from the focused column: the window starts as far left as it can while showing it.
        let first = max(0, min(focusColumn - fit + 1, total - fit))
        return (first, fit)
    }

    /// Where the column in `slot` of a window of `count` starts and how wide it is: the screen's width shared out
    /// evenly, the columns on the left taking one cell more each until the remainder is used.
    func columnSpan(slot: Int, of count: Int) -> (x: Int, width: Int) {
        let base = width / count, extra = width % count
        return (slot * base + min(slot, extra), base + (slot < extra ? 1 : 0))
    }

    func renderBoard(into screen: inout ScreenBuffer) {
        guard board != nil else {
            screen.write("loading the board…", x: 1, y: 1, style: Style(attributes: .dim))
            return
        }
        let window = columnWindow()
        for slot in 0..<window.count {
            let index = window.first + slot
            let span = columnSpan(slot: slot, of: window.count)
            renderColumn(index, x: span.x, width: span.width, into: &screen)
        }
        if window.first > 0 { screen.write("◀", x: 0, y: 0, style: Style(foreground: .ansi(.cyan))) }
        if window.first + window.count < columns.count {
            screen.write("▶", x: width - 1, y: 0, style: Style(foreground: .ansi(.cyan)))
        }
    }

    func renderColumn(_ index: Int, x: Int, width columnWidth: Int, into screen: inout ScreenBuffer) {
        guard let board else { return }
        let column = columns[index]
        let all = cardCount(index)
        let cards = visibleCards(index)
        var header = "\(column.name) \(all)"
        if let wip = column.wip { header += "/\(wip.limit)" }
        if filter != nil { header += " (\(cards.count) shown)" }
        var headerStyle = Style(attributes: .bold)
        if let wip = column.wip, all >= wip.limit {
            headerStyle.foreground = all > wip.limit || wip.hard ? .ansi(.red) : .ansi(.yellow)
        }
        if index == self.column && focus == .board { headerStyle.attributes.insert(onHeader ? .reverse : .underline) }
        let inner = columnWidth - 2
        // Cards, two rows each, scrolled so the selection (or the ghost) is visible.
        let rows = cardsPerPage
        // Positions into `cards` (not the cards themselves: a long column copies no card it does not draw).
        var entries: [ColumnEntry] = cards.indices.map { .card($0) }
        if let carry, carry.column == index {
            entries.removeAll { if case .card(let c) = $0 { cards[c].id == carry.card } else { false } }
            entries.insert(.ghost(carry.card), at: min(carry.index, entries.count))
        }
        for (session, entry) in presence where entry.state == .dragging && entry.user != user {
            guard entry.column == column.id, let card = entry.card, board.cards[card] != nil else { continue }
            let at = min(max(0, entry.index ?? 0), entries.count)
            entries.insert(.othersGhost(card, entry.user, session), at: at)
        }
        let focusIndex: Int
        if let carry, carry.column == index { focusIndex = min(carry.index, entries.count - 1) } else { focusIndex = index == self.column ? row : 0 }
        let offset = max(0, min(focusIndex - rows + 1, entries.count - rows))
        var y = 1
        for (position, entry) in entries.enumerated().dropFirst(offset).prefix(rows) {
            let selected = carry == nil && index == self.column && position == row && focus != .input
            renderEntry(entry, of: cards, x: x + 1, y: y, width: inner, selected: selected, into: &screen)
            y += 2
        }
        // The header and, at its right, how many cards are scrolled off above: the header gives way (cut with `…`)
        // so that neither runs into the other or into the column's border.
        let scrolled = offset > 0 ? "↑\(offset)" : ""
        let markerWidth = scrolled.isEmpty ? 0 : DisplayWidth.of(scrolled) + 1
        let headerRoom = max(0, inner - markerWidth)
        screen.write(DisplayWidth.truncate(header, to: headerRoom), x: x + 1, y: 0, style: headerStyle, maxWidth: headerRoom)
        if !scrolled.isEmpty, inner >= markerWidth {
            screen.write(scrolled, x: x + 1 + inner - DisplayWidth.of(scrolled), y: 0, style: Style(attributes: .dim))
        }
        let below = entries.count - offset - rows
        if below > 0 {
            // Its own row, cleared first: it may fall on a card's second row, whose end would show after it.
            screen.fill(Rect(x: x + 1, y: boardHeight - 1, width: inner, height: 1))
            screen.write(
                DisplayWidth.truncate("↓\(below) more", to: inner), x: x + 1, y: boardHeight - 1, style: Style(attributes: .dim),
                maxWidth: inner)
        }
        // A thin separator on the right.
        for row in 0..<boardHeight { screen.write("│", x: x + columnWidth - 1, y: row, style: Style(foreground: .ansi(.brightBlack))) }
    }

    /// One slot of a column as drawn: a card (its position in the column's shown cards), or a ghost.
    enum ColumnEntry {
        case card(Int)
        case ghost(CardID)
        case othersGhost(CardID, UserID, SessionID)
    }

    func renderEntry(
        _ entry: ColumnEntry, of cards: [Card], x: Int, y: Int, width: Int, selected: Bool, into screen: inout ScreenBuffer
    ) {
        guard let board else { return }
        switch entry {
        case .ghost(let id):
            let title = board.cards[id].map { "#\($0.number) \($0.title)" } ?? "?"
            screen.write("┄ " + title, x: x, y: y, style: Style(foreground: .ansi(.cyan), attributes: [.bold, .reverse]), maxWidth: width)
            // Over a column at its hard limit the drop would be refused: say so before it, not after.
            if let full = carryTargetFull(carrying: id) {
                screen.write("  \(full): no drop", x: x, y: y + 1, style: Style(foreground: .ansi(.red)), maxWidth: width)
            } else if let waiting = carryTargetBlocked(carrying: id) {
                // Into an in-progress column a blocked card goes only with a reason: say what it waits for.
                let numbers = waiting.map { "#\($0.number)" }.joined(separator: ", ")
                screen.write("  \(TUIModel.blockedMark)blocked by \(numbers)", x: x, y: y + 1, style: Style(foreground: .ansi(.red)), maxWidth: width)
            } else {
                screen.write("  (drop with Enter)", x: x, y: y + 1, style: Style(attributes: .dim), maxWidth: width)
            }
        case .othersGhost(let id, let who, _):
            let title = board.cards[id].map { "#\($0.number) \($0.title)" } ?? "?"
            screen.write("┄ " + title, x: x, y: y, style: Style(foreground: .ansi(.magenta), attributes: .dim), maxWidth: width)
            screen.write("  \(who) is dragging", x: x, y: y + 1, style: Style(foreground: .ansi(.magenta)), maxWidth: width)
        case .card(let position):
            let card = cards[position]
            var titleStyle = Style()
            if selected { titleStyle.attributes.insert(.reverse) }
            if highlights[card.id] != nil { titleStyle.foreground = .ansi(.brightYellow) }
            if card.closed { titleStyle.attributes.insert(.dim) }
            let mark = marked.contains(card.id) ? "● " : ""
            let closed = card.closed ? "✓ " : ""
            // Blocked (a card it waits for is not done yet) is marked in text (`⊘`) as well as in red, like overdue.
            let blocked = board.isBlocked(card) ? TUIModel.blockedMark : ""
            screen.fill(Rect(x: x, y: y, width: width, height: 1), style: titleStyle)
            // Space is the point here: a title too long for the column ends in `…` (the card detail shows it whole).
            let line = DisplayWidth.truncate("\(mark)\(closed)\(blocked)#\(card.number) \(card.title)", to: width)
            screen.write(line, x: x, y: y, style: titleStyle, maxWidth: width)
            if !blocked.isEmpty {
                var markStyle = titleStyle
                markStyle.foreground = .ansi(.red)
                let at = DisplayWidth.of(mark + closed)
                screen.write(TUIModel.blockedMark, x: x + at, y: y, style: markStyle, maxWidth: max(0, width - at))
            }
            renderDetails(card, x: x, y: y + 1, width: width, into: &screen)
        }
    }

    /// The second row of a card: who is on it right now, the due date, label chips, checklist, assignees, milestone.
    /// Each part is shown whole or not at all, and ` …` says when some are left out: a part cut in the middle (`1/` of
    /// `1/3`) reads as another value.
    func renderDetails(_ card: Card, x: Int, y: Int, width: Int, into screen: inout ScreenBuffer) {
        guard let board else { return }
        var parts: [(text: String, style: Style)] = []
        func put(_ text: String, _ style: Style) { parts.append((text, style)) }
        // Presence first, so it survives truncation.
        let here = presence.values.filter { $0.card == card.id && $0.user != user }.sorted { $0.user.rawValue < $1.user.rawValue }
        for entry in here {
            let sign = entry.state == .editing ? "✎" : entry.state == .dragging ? "✥" : "◉"
            put("\(sign)\(initials(entry.user))", Style(foreground: .ansi(.magenta), attributes: .bold))
        }
        // The due date next: in a narrow column an overdue card must still say so.
        if let due = card.due {
            let days = due.daysSinceEpoch - today.daysSinceEpoch
            var style = Style()
            let done = board.isDone(card)
            if !done && days < 0 { style.foreground = .ansi(.red) } else if !done && days <= 2 { style.foreground = .ansi(.yellow) }
            // Overdue is marked in text too (`!`), so it shows without colour (NO_COLOR) and to the colour-blind.
            put((isOverdue(card) ? "!" : "") + due.description, style)
        }
        for labelID in card.labels {
            guard let label = board.label(labelID) else { continue }
            let background = Color.rgb(red: label.color.red, green: label.color.green, blue: label.color.blue)
            let text = label.color.textColor
            put(label.name, Style(foreground: .rgb(red: text.red, green: text.green, blue: text.blue), background: background))
        }
        if let progress = TUIModel.checklistProgress(card) {
            let done = card.checklist.allSatisfy(\.done)
            put(progress, Style(foreground: done ? .ansi(.green) : .default))
        }
        if !card.assignees.isEmpty {
            put(card.assignees.map { initials($0) }.joined(separator: ","), Style(foreground: .ansi(.cyan)))
        }
        if let id = card.milestone, let milestone = board.milestone(id) {
            put("◆" + DisplayWidth.truncate(milestone.title, to: 16), Style(foreground: .ansi(.blue)))
        }
        var cursor = x + 1
        let end = x + width
        for (index, part) in parts.enumerated() {
            let partWidth = DisplayWidth.of(part.text)
            let last = index == parts.count - 1
            // Room for ` …` after it, unless it is the last part.
            if cursor + partWidth + (last ? 0 : 2) <= end {
                cursor += screen.write(part.text, x: cursor, y: y, style: part.style, maxWidth: end - cursor) + 1
                continue
            }
            if index == 0 {
                // Not even the first part fits: it is cut, and its own `…` says so.
                screen.write(DisplayWidth.truncate(part.text, to: end - cursor), x: cursor, y: y, style: part.style, maxWidth: end - cursor)
            } else if cursor < end {
                screen.write(String(DisplayWidth.ellipsis), x: cursor, y: y, style: Style(), maxWidth: end - cursor)
            }
            break
        }
    }

    /// The mark before the number of a blocked card (``Board/isBlocked(_:)``), in the column and in the detail.
    static let blockedMark = "⊘ "

    /// The blockers still pending of the carried card when its ghost hovers over an in-progress column other than its
    /// own (a drop there needs a reason), else nil.
    func carryTargetBlocked(carrying card: CardID) -> [Card]? {
        guard let carry, carry.card == card, columns.indices.contains(carry.column), let board,
            let moving = board.cards[card]
        else { return nil }
        let column = columns[carry.column]
        guard column.isInProgress, moving.column != column.id else { return nil }
        let waiting = board.blockers(of: moving)
        return waiting.isEmpty ? nil : waiting
    }

    /// Whether `card` is not done and its due date has passed.
    func isOverdue(_ card: Card) -> Bool {
        board?.isOverdue(card, today: today) ?? false
    }

    /// Two capitals from a user id: `alice` → `AL`, `bob.smith` → `BS`. Two members of the board with the same
    /// pair each get their first and last letters instead (`bob` → `BB`, `bot` → `BT`): a card assigned to one must
    /// not read as assigned to the other.
    func initials(_ user: UserID) -> String {
        let pair = Self.pair(user)
        guard clashingInitials.contains(pair) else { return pair }
        let letters = user.rawValue.filter { $0.isLetter || $0.isNumber }
        guard let first = letters.first, let last = letters.last else { return pair }
        return String([first, last]).uppercased()
    }

    /// The pairs more than one member of `board` has.
    static func clashingPairs(_ board: Board?) -> Set<String> {
        var seen: Set<String> = []
        var clashing: Set<String> = []
        for user in board?.members.keys ?? [:].keys {
            let pair = pair(user)
            if !seen.insert(pair).inserted { clashing.insert(pair) }
        }
        return clashing
    }

    private static func pair(_ user: UserID) -> String {
        let parts = user.rawValue.split { $0 == "." || $0 == "-" || $0 == "_" }
        if parts.count >= 2 { return String(parts[0].prefix(1) + parts[1].prefix(1)).uppercased() }
        return String(user.rawValue.prefix(2)).uppercased()
    }

    /// The rows of the feed pane below its title.
    var feedRows: Int { feedHeight - 1 }

    /// One feed entry as the pane shows it: wrapped to the pane's width, later rows indented.
    func feedRows(of entry: FeedEntry) -> [String] {
        DisplayWidth.wrap(entry.text, width: max(1, width - 2), indent: 2)
    }

    /// How far back the feed scrolls: until its first entry is at the top of a full pane (0 when it all fits).
    var feedScrollMax: Int {
        var filled = 0
        for (index, entry) in feed.enumerated() {
            filled += feedRows(of: entry).count
            if filled >= feedRows { return feed.count - index - 1 }
        }
        return 0
    }

    func renderFeed(into screen: inout ScreenBuffer, top: Int) {
        var title = "─ feed "
        if unread > 0 { title += "(\(unread) unread) " }
        let scrollMax = feedScrollMax
        let back = min(feedScroll, scrollMax)
        if back > 0 { title += "[scrolled back \(back)] " }
        let titleStyle = Style(foreground: focus == .feed ? .ansi(.cyan) : .ansi(.brightBlack), attributes: focus == .feed ? .bold : [])
        screen.write(title + String(repeating: "─", count: max(0, width - title.count)), x: 0, y: top, style: titleStyle, maxWidth: width)
        let rows = feedRows
        // Every line is shown whole: wrapped to the pane's width (later rows indented), newest at the bottom; the
        // oldest entry that does not fit shows its last rows, the first of them starting with `…`. Scrolled back to
        // the top, the first entry shows from its first row and the pane is full.
        var shown: [(text: String, entry: FeedEntry)] = []
        if back > 0, back == scrollMax {
            var index = 0
            while shown.count < rows, index < feed.count {
                shown += feedRows(of: feed[index]).map { ($0, feed[index]) }
                index += 1
            }
            shown = Array(shown.prefix(rows))
        } else {
            var index = max(0, feed.count - back)
            while shown.count < rows, index > 0 {
                index -= 1
                shown.insert(contentsOf: feedRows(of: feed[index]).map { ($0, feed[index]) }, at: 0)
            }
            let cut = shown.count > rows
            shown = Array(shown.suffix(rows))
            // The oldest entry's rows shown are not its first: its top row says so, as the indent alone did not.
            if cut, let top = shown.first, top.text.hasPrefix("  ") {
                shown[0].text = "… " + top.text.dropFirst(2)
            }
        }
        for (offset, row) in shown.enumerated() {
            let entry = row.entry
            var style = Style()
            switch entry.kind {
            case .chat: style.foreground = .default
            case .activity: style.foreground = .ansi(.brightBlack)
            case .presence: style = Style(foreground: .ansi(.brightBlack), attributes: .italic)
            case .error: style.foreground = .ansi(.red)
            case .info: style.foreground = .ansi(.cyan)
            case .inbox: style = Style(foreground: .ansi(.yellow), attributes: .bold)
            }
            if entry.mentionsMe { style = Style(foreground: .ansi(.brightYellow), attributes: .bold) }
            if entry.queuedChat != nil { style = Style(foreground: .ansi(.brightBlack), attributes: .italic) }
            screen.write(row.text, x: 1, y: top + 1 + offset, style: style, maxWidth: width - 2)
        }
    }

    /// The status line: who, where, the connection, queued ops, the filter, and a notice.
    public var statusText: String {
        var parts: [String] = []
        parts.append("\(user?.rawValue ?? "…")@\(boardID)")
        switch connection {
        case .connected: parts.append("connected")
        case .connecting: parts.append("connecting")
        case .reconnecting:
            let seconds = reconnectSecondsLeft ?? 0
            parts.append(seconds > 0 ? "reconnecting in \(seconds)s (r: now)" : "reconnecting…")
        case .stopped: parts.append("offline")
        }
        if let inboxStatus { parts.append(inboxStatus) }
        if pendingCount > 0 { parts.append("\(pendingCount) queued") }
        if let filter { parts.append("filter: \(filter.text)") }
        if marking { parts.append("\(marked.count) marked") }
        if let away { parts.append("away: \(away)") }
        if let notice {
            parts.append(notice)
        } else if onHeader && overlay == nil && focus == .board && carry == nil {
            // Only while the column keys apply: not after Tab moved the focus to the feed or the input line.
            parts.append(TUIModel.headerHint)
        }
        return parts.joined(separator: " · ")
    }

    func renderStatus(into screen: inout ScreenBuffer, y: Int) {
        var style = Style(foreground: .ansi(.black), background: .ansi(.cyan))
        if case .connected = connection {} else { style.background = .ansi(.yellow) }
        if case .stopped = connection { style.background = .ansi(.red) }
        screen.fill(Rect(x: 0, y: y, width: width, height: 1), style: style)
        // Cut with `…`, so that a notice cut short is seen to go on (a wider terminal shows the rest).
        screen.write(DisplayWidth.truncate(" " + statusText, to: width), x: 0, y: y, style: style, maxWidth: width)
    }

    func renderInput(into screen: inout ScreenBuffer, y: Int) {
        let prompt: String
        switch purpose {
        case .chat: prompt = "> "
        case .newCard(let column): prompt = "new card in \(board?.column(column)?.name ?? column.rawValue): "
        case .editTitle(let card): prompt = "title of #\(board?.cards[card]?.number ?? 0): "
        case .comment(let card): prompt = "comment on #\(board?.cards[card]?.number ?? 0): "
        case .renameColumn(let column): prompt = "rename \(board?.column(column)?.name ?? column.rawValue): "
        case .newColumn: prompt = "new column: "
        case .wipLimit(let column):
            let shown = board?.column(column)
            let now = shown?.wip.map { "now \(TUIModel.wipText($0))" } ?? "none now"
            prompt = "WIP limit of \(shown?.name ?? column.rawValue), \(now) (N [hard] | none): "
        case .checklistItem(let card): prompt = "checklist item on #\(board?.cards[card]?.number ?? 0): "
        case .newMilestone: prompt = "new milestone (TITLE [YYYY-MM-DD]): "
        case .newBoard: prompt = "new board (ID NAME): "
        case .archiveSearch: prompt = "search the archive: "
        }
        let style = Style(attributes: focus == .input ? [] : .dim)
        let used = screen.write(prompt, x: 0, y: y, style: Style(foreground: .ansi(.cyan)), maxWidth: width)
        var room = max(1, width - used - 1)
        // Near or past the limit, the room left (or how far over) at the end of the line.
        if let counter = inputCounter, width - used - counter.text.count - 2 >= 10 {
            room -= counter.text.count + 1
            let counterStyle = Style(foreground: counter.over ? .ansi(.red) : .ansi(.yellow), attributes: counter.over ? .bold : [])
            screen.write(counter.text, x: width - counter.text.count, y: y, style: counterStyle)
        }
        let before = input.beforeCursor
        let beforeWidth = DisplayWidth.of(before)
        let skip = max(0, beforeWidth - room + 1)
        let shown = TUIModel.dropping(width: skip, from: input.text)
        screen.write(shown, x: used, y: y, style: style, maxWidth: room)
        if focus == .input {
            screen.cursor = Position(x: min(width - 1, used + beforeWidth - skip), y: y)
        } else if input.text.isEmpty {
            // A draft kept with Esc is said, or it is easy to forget and type over.
            let hint = draft == nil ? "Tab: feed/input · ?: keys · /: filter" : "a draft is kept: : brings it back · ?: keys"
            screen.write(hint, x: used, y: y, style: Style(attributes: .dim), maxWidth: room)
        }
    }

    /// `text` without its leading characters worth at least `width` columns (the input line scrolled left).
    static func dropping(width: Int, from text: String) -> String {
        var dropped = 0
        var rest = Substring(text)
        while dropped < width, let first = rest.first {
            dropped += DisplayWidth.of(first)
            rest = rest.dropFirst()
        }
        return String(rest)
    }
}
