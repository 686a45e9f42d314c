/// A parsed search query: cards match when they pass every term (AND).
///
/// Used by the terminal client's `/filter QUERY`, `cork search QUERY` and bots. Parse with `Query.parse(_:)`;
/// `description` prints the canonical text, and `parse(q.description) == q` for every parsed `q`.
///
/// Archived cards never match unless the query has a top-level `is:archived` term, which selects archived cards
/// only. The empty query matches every unarchived card.
public struct Query: Hashable, Sendable, CustomStringConvertible {
    /// The terms, in the order written; all must match.
    public var terms: [QueryTerm]

    /// Makes a query from terms.
    public init(terms: [QueryTerm] = []) {
        self.terms = terms
    }

    /// The query that matches every unarchived card.
    public static let all = Query()

    /// Whether the query has no terms.
    public var isEmpty: Bool { terms.isEmpty }

    /// Whether the query selects archived cards (instead of unarchived ones): it has a top-level `is:archived`.
    public var selectsArchived: Bool { terms.contains(.archived) }

    /// The canonical text: the terms' canonical texts separated by single spaces.
    public var description: String {
        terms.map(\.description).joined(separator: " ")
    }
}
