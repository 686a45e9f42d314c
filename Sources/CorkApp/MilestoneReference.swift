import BoardCore

/// What a person typed to name a milestone: its id, or its title in any case (`V1.0` finds v1.0).
public struct MilestoneReference: Hashable, Sendable, CustomStringConvertible {
    /// The text as typed, without surrounding spaces.
    public var text: String

    /// Wraps what a person typed.
    public init(_ text: String) { self.text = text.trimmingSpaces }

    /// The text.
    public var description: String { text }

    /// The one milestone this reference names on `board`.
    ///
    /// An exact id wins; otherwise the milestone whose title or id equals the text ignoring case. When one
    /// milestone's title and another's id both match, the reference is ambiguous.
    public func resolve(in board: Board) throws(ResolutionError) -> Milestone {
        let titles = board.milestones.map(\.title)
        if text.isEmpty {
            throw ResolutionError(.invalid, "no milestone given; \(ResolutionError.known("milestones", titles))")
        }
        if let exact = board.milestones.first(where: { $0.id.rawValue == text }) { return exact }
        let lower = text.lowercased()
        let matches = board.milestones.filter { $0.title.lowercased() == lower || $0.id.rawValue.lowercased() == lower }
        if matches.count == 1 { return matches[0] }
        if matches.count > 1 {
            let options = matches.map { "\"\($0.title)\" (id \($0.id))" }.joined(separator: " or ")
            throw ResolutionError(.ambiguous, "milestone \"\(text)\" could be \(options); write the exact id")
        }
        throw ResolutionError(
            .notFound, "no milestone \"\(text)\" on board \(board.id); \(ResolutionError.known("milestones", titles))")
    }

    /// Resolves `text` as a milestone on `board`.
    public static func resolve(_ text: String, in board: Board) throws(ResolutionError) -> Milestone {
        try MilestoneReference(text).resolve(in: board)
    }
}
