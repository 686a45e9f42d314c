import BoardCore

/// A board as plain text for `cork show` and `cork search`: one column after another, cards one per line.
///
/// ```
/// Main (main) · seq 12
///
/// TODO 2
///   #2 Fix login timeout [bug] due 2026-01-20 OVERDUE @bob
///   #4 Document invite URLs
/// DOING 1/2
///   #1 Write Protocol.md @alice
/// DONE 0
/// ```
///
/// A column's count is its unarchived cards, with `/limit` when it has a WIP limit (`!` when over it). Titles and
/// names are put on one line (control characters become spaces), so the output cannot move a terminal's cursor.
public enum BoardText {
    /// The whole board: a header line, then each column with its count and unarchived cards.
    public static func board(_ board: Board, today: Day) -> String {
        var lines = ["\(FeedText.oneLine(board.name)) (\(board.id)) · seq \(board.seq)", ""]
        for column in board.columns {
            lines.append(columnHeader(column, count: board.count(in: column.id)))
            for card in board.cards(in: column.id) {
                lines.append("  " + cardLine(card, in: board, today: today))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `TODO 2`, `DOING 2/3` (WIP limit 3), `DOING 4/3!` (over it).
    public static func columnHeader(_ column: Column, count: Int) -> String {
        var header = "\(FeedText.oneLine(column.name)) \(count)"
        if let wip = column.wip {
            header += "/\(wip.limit)"
            if count > wip.limit { header += "!" }
        }
        return header
    }

    /// `#12 title [bug, docs] due 2026-01-20 OVERDUE @bob @carol BLOCKED by #3`, plus `(closed)` or `(archived)`.
    public static func cardLine(_ card: Card, in board: Board, today: Day) -> String {
        var parts = ["#\(card.number)", FeedText.oneLine(card.title)]
        if !card.labels.isEmpty { parts.append("[\(labelNames(card, in: board).joined(separator: ", "))]") }
        if let due = card.due {
            parts.append("due \(due)")
            if board.isOverdue(card, today: today) { parts.append("OVERDUE") }
        }
        parts += card.assignees.map { "@\($0)" }
        let waiting = board.blockers(of: card)
        if !waiting.isEmpty { parts.append("BLOCKED by " + waiting.map { "#\($0.number)" }.joined(separator: ", ")) }
        if card.closed { parts.append("(closed)") }
        if card.archived { parts.append("(archived)") }
        return parts.joined(separator: " ")
    }

    /// Cards matching a search, one line each with their column: `#12 title … — DOING`.
    public static func results(_ cards: [Card], in board: Board, today: Day) -> String {
        if cards.isEmpty { return "no cards match\n" }
        return cards.map { card in
            cardLine(card, in: board, today: today) + " — " + FeedText.oneLine(board.column(card.column)?.name ?? card.column.rawValue)
        }.joined(separator: "\n") + "\n"
    }

    /// A card in full: title, fields, description, checklist and comments.
    public static func card(_ card: Card, in board: Board, today: Day) -> String {
        var lines = ["#\(card.number) \(FeedText.oneLine(card.title))"]
        var fields = ["column: \(FeedText.oneLine(board.column(card.column)?.name ?? card.column.rawValue))"]
        var status = card.closed ? "closed" : "open"
        if card.archived { status += ", archived" }
        fields.append("status: \(status)")
        if !card.labels.isEmpty { fields.append("labels: \(labelNames(card, in: board).joined(separator: ", "))") }
        if let due = card.due { fields.append("due: \(due)\(board.isOverdue(card, today: today) ? " OVERDUE" : "")") }
        if !card.assignees.isEmpty { fields.append("assignees: \(card.assignees.map { "@\($0)" }.joined(separator: " "))") }
        if let milestone = card.milestone {
            fields.append("milestone: \(FeedText.oneLine(board.milestone(milestone)?.title ?? milestone.rawValue))")
        }
        if let ref = card.ref { fields.append("ref: \(FeedText.oneLine(ref))") }
        let waiting = board.blockers(of: card)
        if !waiting.isEmpty {
            fields.append("blocked by: " + waiting.map { "#\($0.number) \(FeedText.oneLine($0.title))" }.joined(separator: ", "))
        }
        if let recur = card.recur { fields.append("recurs: \(recur)") }
        if !card.watchers.isEmpty { fields.append("watched by: " + card.watchers.map { "@\($0)" }.joined(separator: " ")) }
        let blocks = board.blocked(by: card.id)
        if !blocks.isEmpty {
            fields.append("blocks: " + blocks.map { "#\($0.number) \(FeedText.oneLine($0.title))" }.joined(separator: ", "))
        }
        fields.append("id: \(card.id)")
        lines += fields.map { "  " + $0 }
        lines.append(
            "  created by \(card.createdBy) at \(BoardExport.iso8601(card.createdAt)), "
                + "updated by \(card.updatedBy) at \(BoardExport.iso8601(card.updatedAt))")
        if !card.description.isEmpty {
            lines.append("")
            lines += plainLines(card.description).map { "  " + $0 }
        }
        if !card.checklist.isEmpty {
            let done = card.checklist.filter(\.done).count
            lines.append("")
            lines.append("Checklist \(done)/\(card.checklist.count):")
            lines += card.checklist.map { "  [\($0.done ? "x" : " ")] \(FeedText.oneLine($0.text))" }
        }
        if !card.comments.isEmpty {
            lines.append("")
            lines.append("Comments (\(card.comments.count)):")
            for comment in card.comments {
                let edited = comment.editedAt == nil ? "" : " (edited)"
                lines.append("  \(comment.author) at \(BoardExport.iso8601(comment.at))\(edited):")
                lines += plainLines(comment.text).map { "    " + $0 }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The board's boards list: `main  Corkboard  owner  seq 9`.
    public static func boards(_ rows: [(board: String, name: String, role: String, seq: UInt64)]) -> String {
        if rows.isEmpty { return "no boards\n" }
        let width = rows.map(\.board.count).max() ?? 0
        return rows.map { row in
            row.board + String(repeating: " ", count: max(0, width - row.board.count))
                + "  \(FeedText.oneLine(row.name))  \(row.role)  seq \(row.seq)"
        }.joined(separator: "\n") + "\n"
    }

    /// `TODO 2 | DOING 1/3 hard | DONE 0`: the columns left to right with their counts and WIP limits.
    public static func columns(_ board: Board) -> String {
        board.columns.map { columnHeader($0, count: board.count(in: $0.id)) + ($0.wip?.hard == true ? " hard" : "") }
            .joined(separator: " | ")
    }

    /// `text` on one line without surrounding spaces (control characters become spaces), for output.
    public static func plain(_ text: String) -> String { FeedText.oneLine(text) }

    /// Label names of a card, in the card's order (the id when the label is gone).
    static func labelNames(_ card: Card, in board: Board) -> [String] {
        card.labels.map { FeedText.oneLine(board.label($0)?.name ?? $0.rawValue) }
    }

    /// Multi-line text as lines with every control character other than the line breaks made a space.
    static func plainLines(_ text: String) -> [String] {
        text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
            .map { FeedText.oneLine(String($0)) }
    }
}
