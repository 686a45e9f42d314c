/// The fixed vocabulary of the query language: field names, spaces, and "did you mean" suggestions.
enum QuerySyntax {
    /// The filter names, in the order they are listed to users.
    static let fields = ["label", "assignee", "due", "status", "is", "no", "column", "milestone", "ref", "blocks"]

    /// What `no:` accepts, each the same as `FIELD:none`.
    static let noValues = ["milestone", "due", "assignee"]

    /// Whether a scalar separates terms.
    static func isSpace(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.isWhitespace }

    /// The filter the user probably meant by `name` (lowercase), if one is close: a filter it starts, or one a
    /// typo or two away (one for short names).
    static func suggestion(for name: String) -> String? {
        if name.count >= 2, let field = fields.first(where: { $0.hasPrefix(name) }) { return field }
        let limit = name.count <= 3 ? 1 : 2
        var best: (field: String, distance: Int)?
        for field in fields {
            let d = distance(name, field)
            if d <= limit, d < (best?.distance ?? Int.max) { best = (field, d) }
        }
        return best?.field
    }

    /// The optimal-string-alignment edit distance (``EditDistance``).
    static func distance(_ a: String, _ b: String) -> Int { EditDistance.between(a, b) }
}
