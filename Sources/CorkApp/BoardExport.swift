import BoardCore
import Foundation

/// A board written out for people and other tools: the protocol's snapshot JSON, or CSV for spreadsheets.
public enum BoardExport {
    /// The CSV header: one row per card, archived cards included, in board order (column, then rank).
    public static let csvHeader = [
        "number", "id", "column", "title", "description", "labels", "assignees", "due", "milestone", "closed",
        "archived", "ref", "created_by", "created_at", "updated_at",
    ]

    /// The board as the protocol's snapshot JSON (the `state` of a `snapshot` message), keys sorted, indented.
    public static func json(_ board: Board) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(board)
        data.append(0x0A)
        return data
    }

    /// The board's cards as RFC 4180 CSV: a header row, then one row per card, lines ending in CRLF.
    ///
    /// Columns, labels and milestones appear by name; several labels or assignees are joined with `;`; dates are
    /// `YYYY-MM-DD` and timestamps ISO 8601 in UTC to the second (`2026-01-01T09:30:00Z`). A field is quoted when it
    /// holds a comma, a double quote, CR or LF, with its quotes doubled. With `neutralizeFormulas`, a text field
    /// that a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, tab or CR) gets a leading `'`.
    public static func csv(_ board: Board, neutralizeFormulas: Bool = false) -> String {
        var out = csvRow(csvHeader)
        for card in board.orderedCards {
            let text: (String) -> String = { neutralizeFormulas ? neutralize($0) : $0 }
            let labels = card.labels.map { board.label($0)?.name ?? $0.rawValue }
            let row = [
                String(card.number), card.id.rawValue, text(board.column(card.column)?.name ?? card.column.rawValue),
                text(card.title), text(card.description), text(labels.joined(separator: ";")),
                card.assignees.map(\.rawValue).joined(separator: ";"), card.due?.description ?? "",
                text(card.milestone.map { board.milestone($0)?.title ?? $0.rawValue } ?? ""),
                String(card.closed), String(card.archived), text(card.ref ?? ""), card.createdBy.rawValue,
                iso8601(card.createdAt), iso8601(card.updatedAt),
            ]
            out += csvRow(row)
        }
        return out
    }

    /// One CSV record: the fields escaped, joined with commas, ended with CRLF.
    public static func csvRow(_ fields: [String]) -> String {
        fields.map(csvField).joined(separator: ",") + "\r\n"
    }

    /// One CSV field: quoted, with its quotes doubled, when it holds a comma, a quote, CR or LF.
    public static func csvField(_ field: String) -> String {
        let special = field.unicodeScalars.contains { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" }
        guard special else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `2026-01-01T09:30:00Z`: the instant in UTC, to the second.
    public static func iso8601(_ timestamp: Timestamp) -> String {
        let ms = timestamp.milliseconds
        let msOfDay = ((ms % 86_400_000) + 86_400_000) % 86_400_000
        let seconds = Int(msOfDay / 1000)
        func pad(_ v: Int) -> String { v < 10 ? "0\(v)" : String(v) }
        return "\(timestamp.day)T\(pad(seconds / 3600)):\(pad(seconds / 60 % 60)):\(pad(seconds % 60))Z"
    }

    private static func neutralize(_ field: String) -> String {
        guard let first = field.unicodeScalars.first, ["=", "+", "-", "@", "\t", "\r"].contains(first) else {
            return field
        }
        return "'" + field
    }
}
