import BoardCore

/// What a person typed to name a column: its id, or its name in any case (`doing` finds DOING).
public struct ColumnReference: Hashable, Sendable, CustomStringConvertible {
    /// The text as typed, without surrounding spaces.
    public var text: String

    /// Wraps what a person typed.
    public init(_ text: String) { self.text = text.trimmingSpaces }

    /// The text.
    public var description: String { text }

    /// The one column this reference names on `board`.
    ///
    /// An exact id wins; otherwise the column whose name or id equals the text ignoring case. When one column's
    /// name and another's id both match, the reference is ambiguous.
    public func resolve(in board: Board) throws(ResolutionError) -> Column {
        let names = board.columns.map(\.name)
        if text.isEmpty {
            throw ResolutionError(.invalid, "no column given; \(ResolutionError.known("columns", names))")
        }
        if let exact = board.columns.first(where: { $0.id.rawValue == text }) { return exact }
        let lower = text.lowercased()
        let byName = board.columns.filter { $0.name.lowercased() == lower }
        let byID = board.columns.filter { $0.id.rawValue.lowercased() == lower }
        var matches = byName
        for column in byID where !matches.contains(where: { $0.id == column.id }) { matches.append(column) }
        if matches.count == 1 { return matches[0] }
        if matches.count > 1 {
            let options = matches.map { "\($0.name) (id \($0.id))" }.joined(separator: " or ")
            throw ResolutionError(.ambiguous, "column \"\(text)\" could be \(options); write the exact id")
        }
        throw ResolutionError(.notFound, "no column \"\(text)\"; \(ResolutionError.known("columns", names))")
    }

    /// Resolves `text` as a column on `board`.
    public static func resolve(_ text: String, in board: Board) throws(ResolutionError) -> Column {
        try ColumnReference(text).resolve(in: board)
    }
}
