import BoardCore

/// What a person typed to name a label: its id, or its name in any case (`BUG` finds bug).
public struct LabelReference: Hashable, Sendable, CustomStringConvertible {
    /// The text as typed, without surrounding spaces.
    public var text: String

    /// Wraps what a person typed.
    public init(_ text: String) { self.text = text.trimmingSpaces }

    /// The text.
    public var description: String { text }

    /// The one label this reference names on `board`.
    ///
    /// An exact id wins; otherwise the label whose name or id equals the text ignoring case. When one label's name
    /// and another's id both match, the reference is ambiguous.
    public func resolve(in board: Board) throws(ResolutionError) -> Label {
        let names = board.labels.map(\.name)
        if text.isEmpty {
            throw ResolutionError(.invalid, "no label given; \(ResolutionError.known("labels", names))")
        }
        if let exact = board.labels.first(where: { $0.id.rawValue == text }) { return exact }
        let lower = text.lowercased()
        var matches = board.labels.filter { $0.name.lowercased() == lower }
        for label in board.labels where label.id.rawValue.lowercased() == lower
            && !matches.contains(where: { $0.id == label.id })
        {
            matches.append(label)
        }
        if matches.count == 1 { return matches[0] }
        if matches.count > 1 {
            let options = matches.map { "\($0.name) (id \($0.id))" }.joined(separator: " or ")
            throw ResolutionError(.ambiguous, "label \"\(text)\" could be \(options); write the exact id")
        }
        throw ResolutionError(
            .notFound, "no label \"\(text)\" on board \(board.id); \(ResolutionError.known("labels", names))")
    }

    /// Resolves `text` as a label on `board`.
    public static func resolve(_ text: String, in board: Board) throws(ResolutionError) -> Label {
        try LabelReference(text).resolve(in: board)
    }
}
