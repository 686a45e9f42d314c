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

    /// The optimal-string-alignment edit distance: insertions, deletions, substitutions and adjacent swaps.
    static func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a), y = Array(b)
        if x.isEmpty || y.isEmpty { return max(x.count, y.count) }
        var previous = [Int](repeating: 0, count: y.count + 1)
        var current = Array(0...y.count)
        var before = current
        for i in 1...x.count {
            before = previous
            previous = current
            current = [Int](repeating: 0, count: y.count + 1)
            current[0] = i
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] {
                    current[j] = min(current[j], before[j - 2] + 1)
                }
            }
        }
        return current[y.count]
    }
}
