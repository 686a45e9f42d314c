import BoardCore

/// Why what a person typed for a card, column, label or member does not name exactly one thing on the board.
///
/// `message` is a sentence a person can act on, e.g. `no card #99 on board main` or
/// `no column "doin"; columns are TODO, DOING, DONE`.
public struct ResolutionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure, as a stable snake_case code for scripts.
    public enum Code: String, Hashable, Sendable, CaseIterable {
        /// The text is not a reference at all (empty, `#abc`, `ref:` with nothing after it).
        case invalid
        /// Nothing on the board matches.
        case notFound = "not_found"
        /// The card was purged from the board.
        case gone
        /// More than one thing matches; the message says how to pick one.
        case ambiguous
    }

    /// The kind of failure.
    public var code: Code
    /// A sentence a person can act on.
    public var message: String

    /// Makes an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}

extension ResolutionError {
    /// At most this many names are listed in a "columns are …" hint.
    static let listMax = 10

    /// `columns are A, B, C` (or the first `listMax` and `…`), or `there are no columns` for an empty list.
    static func known(_ plural: String, _ names: [String]) -> String {
        names.isEmpty ? "there are no \(plural)" : "\(plural) are \(list(names))"
    }

    /// `A, B, C` (or the first `listMax` and `…`), or `none` for an empty list.
    static func list(_ names: [String]) -> String {
        if names.isEmpty { return "none" }
        let shown = names.prefix(listMax).joined(separator: ", ")
        return names.count > listMax ? shown + ", …" : shown
    }
}
