import BoardClient
import BoardCore
import Foundation
import TerminalUI

extension TUIModel {
    /// One line of a list overlay, with its style.
    typealias OverlayLine = (text: String, style: Style)

    /// The rows of a list overlay of `rows` rows under `headingLines` that fit on screen, scrolled so that
    /// ``overlayRow`` is among them.
    func listWindow(rows: Int, headingLines: Int) -> Range<Int> {
        let room = max(1, height - 4 - headingLines - 3)
        let shown = min(rows, room)
        let offset = max(0, min(overlayRow - shown + 1, rows - shown))
        return offset..<(offset + shown)
    }

    /// Draws a centred box titled `title` holding `rows` (the one at ``overlayRow`` in reverse, scrolled into view)
    /// under `heading` lines, with `footer` at the bottom.
    func renderList(
        title: String, heading: [OverlayLine], rows: [OverlayLine], empty: String, footer: String,
        into screen: inout ScreenBuffer
    ) {
        // 78 columns, wider (up to 120) when a row needs it and the terminal has the room: a wide terminal shows
        // long entries whole instead of cutting them at 78.
        let widest = max(
            rows.map { DisplayWidth.of($0.text) + 5 }.max() ?? 0, heading.map { DisplayWidth.of($0.text) + 4 }.max() ?? 0,
            DisplayWidth.of(footer) + 4)
        let boxWidth = min(width - 2, min(120, max(78, widest)))
        let window = listWindow(rows: rows.count, headingLines: heading.count)
        let shownCount = max(1, window.count)
        let boxHeight = min(height - 2, heading.count + shownCount + 4)
        let rect = Rect(x: max(0, (width - boxWidth) / 2), y: 1, width: boxWidth, height: boxHeight)
        screen.fill(rect)
        screen.drawBox(rect, title: " \(title) ")
        var y = rect.y + 1
        for line in heading {
            screen.write(line.text, x: rect.x + 2, y: y, style: line.style, maxWidth: boxWidth - 4)
            y += 1
        }
        if rows.isEmpty {
            screen.write(empty, x: rect.x + 2, y: y, style: Style(attributes: .dim), maxWidth: boxWidth - 4)
        }
        let offset = window.lowerBound
        for (index, line) in rows.enumerated().dropFirst(offset).prefix(shownCount) {
            var style = line.style
            if index == overlayRow { style.attributes.insert(.reverse) }
            screen.fill(Rect(x: rect.x + 1, y: y, width: boxWidth - 2, height: 1), style: style)
            // A row longer than the box ends in `…`, so a cut line does not read as a whole one.
            let text = DisplayWidth.truncate((index == overlayRow ? "▸ " : "  ") + line.text, to: boxWidth - 3)
            screen.write(text, x: rect.x + 1, y: y, style: style, maxWidth: boxWidth - 3)
            y += 1
        }
        let more = rows.count - offset - shownCount
        if offset > 0 || more > 0 {
            screen.write("↑\(offset) ↓\(max(0, more))", x: rect.x + boxWidth - 12, y: rect.y, style: Style(attributes: .dim))
        }
        screen.write(
            DisplayWidth.truncate(footer, to: boxWidth - 4), x: rect.x + 2, y: rect.y + boxHeight - 2,
            style: Style(attributes: .dim), maxWidth: boxWidth - 4)
    }

    /// The milestones overlay: title, a progress bar with done/total, the due date (overdue: red and `!`).
    func renderMilestones(into screen: inout ScreenBuffer) {
        guard let board else { return }
        let rows = milestoneRows
        let titleWidth = min(24, rows.map(\.title.count).max() ?? 0)
        let lines: [OverlayLine] = rows.map { milestone in
            let progress = board.progress(of: milestone.id)
            let bar = TUIModel.progressBar(done: progress.done, total: max(progress.total, 1), cells: 10)
            let title = milestone.title.count > titleWidth
                ? String(milestone.title.prefix(titleWidth - 1)) + "…"
                : milestone.title.padding(toLength: titleWidth, withPad: " ", startingAt: 0)
            var text = "\(title)  \(progress.total == 0 ? "▱▱▱▱▱▱▱▱▱▱" : bar) \(progress.done)/\(progress.total)"
            var style = Style()
            if let due = milestone.due {
                // Overdue is marked in text too (`!`), so it shows without colour.
                text += isOverdue(milestone) ? "  due !\(due) overdue" : "  due \(due)"
                if isOverdue(milestone) { style.foreground = .ansi(.red) }
            }
            if milestone.closed {
                text += "  ✓ closed"
                style.attributes.insert(.dim)
            }
            return (text, style)
        }
        let count = targets.count
        let heading: [OverlayLine] = [(
            count == 0 ? "no card selected" : "for \(count) card\(count == 1 ? "" : "s"): "
                + targets.prefix(5).map { "#\($0.number)" }.joined(separator: " ") + (count > 5 ? " …" : ""),
            Style(foreground: .ansi(.cyan))
        )]
        renderList(
            title: "milestones", heading: heading, rows: lines, empty: "no milestones yet: n creates one",
            footer: "Enter put the card(s) in it · - take them out · f filter · n new · C close/reopen · Esc",
            into: &screen)
    }

    /// The board picker: each board with this user's role, the current one marked.
    func renderBoards(into screen: inout ScreenBuffer) {
        let lines: [OverlayLine] = (boardList ?? []).map { summary in
            let current = summary.board == boardID
            let text = "\(current ? "● " : "  ")\(summary.board)  \(summary.name)  (\(summary.role))"
            return (text, Style(attributes: current ? .bold : []))
        }
        renderList(
            title: "boards", heading: [], rows: lines,
            empty: boardList != nil ? "no boards"
                : boardListFailure.map { "could not list the boards (\($0)); they are listed once connected" } ?? "listing the boards…",
            footer: "Enter switch to it · n new board · Esc close", into: &screen)
    }

    /// The members overlay: user, display name, role, and who is online (● online, ◐ away, ○ offline).
    func renderMembers(into screen: inout ScreenBuffer) {
        let lines: [OverlayLine] = memberRows.map { member in
            let state = onlineState(of: member.id)
            let mark = state.online ? (state.away ? "◐ away   " : "● online ") : "○ offline"
            let name = member.name.isEmpty ? "" : " (\(member.name))"
            let note = state.away ? awayNote(of: member.id).map { " — \($0)" } ?? "" : ""
            let text = "\(mark)  \(member.role.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0))  \(member.id)\(name)\(note)"
            return (text, Style(foreground: state.online ? .ansi(.green) : .default))
        }
        let owner = user.flatMap { board?.members[$0]?.role } == .owner
        renderList(
            title: "members", heading: [], rows: lines, empty: "no members",
            footer: owner ? "o owner · e editor · v viewer · b bot: change the role · Esc close" : "Esc close",
            into: &screen)
    }

    /// The archive view: archived cards through the search, with their column.
    func renderArchive(into screen: inout ScreenBuffer) {
        guard let board else { return }
        let rows = archivedRows
        let lines: [OverlayLine] = rows.map { card in
            ("#\(card.number) \(card.title)  · \(board.column(card.column)?.name ?? card.column.rawValue)", Style())
        }
        let total = board.cards.values.filter(\.archived).count
        let heading: [OverlayLine] = [(
            archiveSearch.isEmpty ? "\(total) archived" : "\(rows.count) of \(total) archived match \(archiveSearch)",
            Style(foreground: .ansi(.cyan))
        )]
        renderList(
            title: "archive", heading: heading, rows: lines,
            empty: archiveSearch.isEmpty ? "no card is archived" : "nothing archived matches \(archiveSearch)",
            footer: "Enter restore · / search · Esc close", into: &screen)
    }
}
