import TerminalUI

extension TUIModel {
    /// The key help (`?`): the keys, then every input-line command with its arguments.
    public static let helpLines = [
        "h j k l / arrows  move the selection      Enter  card, history; c comment, E description",
        "PgUp / PgDn       a screenful of cards    g / G  first / last card (in the feed too)",
        "Space / m         pick the card up; arrows carry it; Enter drops it; Esc puts it back",
        "J / K             reorder in the column    H / L  move to the column left / right",
        "n  new card here   e  edit the title       E  edit the description in $EDITOR",
        "x  archive         C  close / reopen       u / U  undo / redo your own changes, newest first",
        "v  multi-select (Space marks; H/L, x, C, /label and M apply to all)",
        "k above the first card: the column header; e rename, a add a column, H/L move, w WIP limit, x remove",
        "M  milestones: Enter puts the card(s) in one, - takes them out, f filters, n new, C close/reopen",
        "b  boards: Enter switches, n creates     I  inbox (✉ in the status line): Enter goes to the card",
        "Card detail: j / k select a checklist item, Space ticks it, J / K move it, x removes it, a adds one",
        "/  filter (label:bug @me due:overdue is:open \"words\")   Tab  board → feed → input",
        "Ctrl-Z  suspend to the shell (fg comes back)    r  reconnect now (while the connection is down)",
        "Ctrl-L  repaint the whole screen",
        "q  quit (asks again while ops are queued)       Esc or ? closes this help",
        "",
        "Input line: plain text is chat; Tab completes commands, #cards, columns, labels, users (again: the next one).",
        "Esc leaves it, keeping a half-typed line as a draft; : brings the draft back.",
        "CARD is #12, 12 or ref:ID; left out, it is the selected card.",
    ] + SlashCommand.all.map { "  \($0.usage)  \($0.summary)" }

    /// The key help as drawn now: its lines wrapped to the box, how many show at once, and the box's width.
    ///
    /// A terminal narrower than the lines wraps them (continuation rows indented); one shorter than them scrolls
    /// them (``overlayRow`` is the first row shown), so every line can be reached at any size.
    var helpLayout: (rows: [String], visible: Int, boxWidth: Int) {
        // At most the width but its first column: a box that wide puts its right edge on the last column's rule
        // (one column short left a double rule, `││`).
        let boxWidth = min(width - 1, (TUIModel.helpLines.map { DisplayWidth.of($0) }.max() ?? 40) + 4)
        let rows = TUIModel.helpLines.flatMap { TUIModel.wrap($0, width: max(8, boxWidth - 4)) }
        return (rows, max(1, min(height - 4, rows.count)), boxWidth)
    }

    /// The first help row that can be shown at the top: the last screenful starts there.
    var helpScrollMax: Int { max(0, helpLayout.rows.count - helpLayout.visible) }

    /// A key in the help: the arrows, `j`/`k`, PgUp/PgDn and `g`/`G` scroll it; Esc, Enter, `q` and `?` close it.
    mutating func helpKey(_ event: KeyEvent) -> [TUIEffect] {
        let page = max(1, helpLayout.visible - 1)
        switch event.key {
        case .escape, .enter, .character("q"), .character("?"): return closeOverlay()
        case .down, .character("j"): overlayRow += 1
        case .up, .character("k"): overlayRow -= 1
        case .pageDown, .character(" "): overlayRow += page
        case .pageUp: overlayRow -= page
        case .home, .character("g"): overlayRow = 0
        case .end, .character("G"): overlayRow = helpScrollMax
        default: break
        }
        overlayRow = max(0, min(helpScrollMax, overlayRow))
        return []
    }

    /// The key help (`?`): a screenful of it, with how much is above and below on the bottom edge.
    func renderHelp(into screen: inout ScreenBuffer) {
        let layout = helpLayout
        let boxHeight = layout.visible + 2
        let rect = Rect(
            x: max(0, (width - layout.boxWidth + 1) / 2), y: max(0, (height - boxHeight) / 2), width: layout.boxWidth,
            height: boxHeight)
        screen.fill(rect)
        screen.drawBox(rect, title: " keys ")
        let offset = max(0, min(helpScrollMax, overlayRow))
        for (n, line) in layout.rows.dropFirst(offset).prefix(layout.visible).enumerated() {
            screen.write(line, x: rect.x + 2, y: rect.y + 1 + n, maxWidth: layout.boxWidth - 4)
        }
        let below = layout.rows.count - offset - layout.visible
        var scrolled: [String] = []
        if offset > 0 { scrolled.append("↑\(offset) above") }
        if below > 0 { scrolled.append("↓\(below) more") }
        if !scrolled.isEmpty {
            let text = " \(scrolled.joined(separator: " · ")) · j/k PgUp/PgDn "
            screen.write(text, x: rect.x + 2, y: rect.y + boxHeight - 1, style: Style(attributes: .dim), maxWidth: layout.boxWidth - 4)
        }
    }

    /// `line` broken at spaces into rows of at most `width` columns; rows after the first are indented two columns
    /// more than the line (a word longer than a row is cut).
    static func wrap(_ line: String, width: Int) -> [String] {
        guard DisplayWidth.of(line) > width else { return [line] }
        let indent = String(repeating: " ", count: min(width / 2, line.prefix { $0 == " " }.count + 2))
        var rows: [String] = []
        var rest = Substring(line)
        var prefix = ""
        while !rest.isEmpty {
            let room = width - prefix.count
            var end = rest.startIndex
            var columns = 0
            var lastSpace: Substring.Index?
            while end < rest.endIndex, columns + DisplayWidth.of(rest[end]) <= room {
                if rest[end] == " " { lastSpace = end }
                columns += DisplayWidth.of(rest[end])
                end = rest.index(after: end)
            }
            if end < rest.endIndex, rest[end] != " ", let lastSpace, lastSpace > rest.startIndex { end = lastSpace }
            if end == rest.startIndex { end = rest.index(after: end) }
            var row = prefix + rest[..<end]
            while row.last == " " { row.removeLast() }
            rows.append(row)
            rest = rest[end...].drop { $0 == " " }
            prefix = indent
        }
        return rows
    }
}
