extension QueryTerm: CustomStringConvertible {
    /// The term's canonical text: lowercase field names, values quoted only when they need it.
    ///
    /// `Query.parse` reads it back to the same term.
    public var description: String {
        switch self {
        case .word(let text):
            return QueryTerm.quotedIfNeeded(text, isWord: true)
        case .number(let n):
            return "#\(n)"
        case .label(let names):
            return QueryTerm.field("label", names.map { QueryTerm.quotedIfNeeded($0) })
        case .assignee(let values):
            return QueryTerm.field("assignee", values.map(\.text))
        case .due(let values):
            return QueryTerm.field("due", values.map(\.description))
        case .status(let values):
            // `is:` as the docs and the filter hints spell it (`status:` reads the same).
            return QueryTerm.field("is", values.map(\.rawValue))
        case .column(let names):
            return QueryTerm.field("column", names.map { QueryTerm.quotedIfNeeded($0) })
        case .milestone(let values):
            return QueryTerm.field("milestone", values.map(\.text))
        case .ref(let patterns):
            return QueryTerm.field("ref", patterns.map { QueryTerm.quotedIfNeeded($0) })
        case .archived:
            return "is:archived"
        case .blocked:
            return "is:blocked"
        case .blocks(let targets):
            return QueryTerm.field("blocks", targets.map { QueryTerm.quotedIfNeeded($0) })
        case .not(let term):
            return "-" + term.description
        }
    }

    /// `name:` followed by the alternatives joined with `|`.
    static func field(_ name: String, _ alternatives: [String]) -> String {
        name + ":" + alternatives.joined(separator: "|")
    }

    /// `text` as is, or in double quotes with `"` and `\` escaped when it would not read back as itself bare.
    ///
    /// Bare text cannot be empty, hold whitespace, `"`, `\` or `|`, or start with `-`, `@` or `#`; a free word
    /// cannot hold `:` either (it would read as a filter). `keywords` (lowercase) are quoted so they read literally.
    static func quotedIfNeeded(_ text: String, isWord: Bool = false, keywords: Set<String> = []) -> String {
        guard needsQuotes(text, isWord: isWord) || keywords.contains(text.lowercased()) else { return text }
        var out = "\""
        for scalar in text.unicodeScalars {
            if scalar == "\"" || scalar == "\\" { out += "\\" }
            out.unicodeScalars.append(scalar)
        }
        return out + "\""
    }

    /// Whether `text` must be quoted to read back as itself.
    static func needsQuotes(_ text: String, isWord: Bool) -> Bool {
        guard let first = text.unicodeScalars.first else { return true }
        if first == "-" || first == "@" || first == "#" { return true }
        return text.unicodeScalars.contains { scalar in
            QuerySyntax.isSpace(scalar) || scalar == "\"" || scalar == "\\" || scalar == "|"
                || (isWord && scalar == ":")
        }
    }
}

extension QueryTerm.AssigneeValue {
    /// The value as written after `assignee:`.
    var text: String {
        switch self {
        case .me: "me"
        case .none: "none"
        case .user(let name): QueryTerm.quotedIfNeeded(name, keywords: ["me", "none"])
        }
    }
}

extension QueryTerm.MilestoneValue {
    /// The value as written after `milestone:`.
    var text: String {
        switch self {
        case .none: "none"
        case .named(let name): QueryTerm.quotedIfNeeded(name, keywords: ["none"])
        }
    }
}
