import BoardCore

/// What a person typed to name a member: a user id, with or without a leading `@` (`@bob`, `bob`).
///
/// The exact user id wins; otherwise the id ignoring case, then the display name ignoring case, when exactly one
/// member matches.
public struct MemberReference: Hashable, Sendable, CustomStringConvertible {
    /// The text as typed, without surrounding spaces or a leading `@`.
    public var text: String

    /// Wraps what a person typed.
    public init(_ text: String) {
        let trimmed = text.trimmingSpaces
        self.text = trimmed.hasPrefix("@") ? String(trimmed.dropFirst()) : trimmed
    }

    /// The text.
    public var description: String { text }

    /// The one member this reference names on `board`.
    public func resolve(in board: Board) throws(ResolutionError) -> Member {
        let ids = board.members.keys.sorted().map(\.rawValue)
        if text.isEmpty {
            throw ResolutionError(.invalid, "no member given; \(ResolutionError.known("members", ids))")
        }
        if let exact = board.members[UserID(text)] { return exact }
        let lower = text.lowercased()
        let sorted = board.members.values.sorted { $0.id < $1.id }
        for candidates in [
            sorted.filter { $0.id.rawValue.lowercased() == lower },
            sorted.filter { !$0.name.isEmpty && $0.name.lowercased() == lower },
        ] {
            if candidates.count == 1 { return candidates[0] }
            if candidates.count > 1 {
                let options = candidates.map(\.id.rawValue).joined(separator: " or ")
                throw ResolutionError(.ambiguous, "member \"\(text)\" could be \(options); write the exact user id")
            }
        }
        throw ResolutionError(
            .notFound, "\(text) is not a member of board \(board.id); \(ResolutionError.known("members", ids))")
    }

    /// Resolves `text` as a member of `board`.
    public static func resolve(_ text: String, in board: Board) throws(ResolutionError) -> Member {
        try MemberReference(text).resolve(in: board)
    }
}
