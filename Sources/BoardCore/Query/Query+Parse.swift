extension Query {
    /// Parses query text: whitespace-separated terms, values optionally double-quoted with `\"` and `\\` escapes.
    ///
    /// Empty text gives the empty query. Field names and keywords ignore case.
    public static func parse(_ text: String) throws(QueryError) -> Query {
        var scanner = QueryScanner(text)
        var terms: [QueryTerm] = []
        while true {
            scanner.skipSpaces()
            guard !scanner.atEnd else { break }
            terms.append(try parseTerm(&scanner))
        }
        return Query(terms: terms)
    }

    /// Reads one term, with its optional leading `-`.
    static func parseTerm(_ s: inout QueryScanner) throws(QueryError) -> QueryTerm {
        guard s.peek == "-" else { return try parsePositiveTerm(&s) }
        let dash = s.index
        s.index += 1
        if s.atTermEnd {
            throw s.error(.badNegation, "nothing to negate after \"-\"", at: dash)
        }
        if s.peek == "-" {
            throw s.error(
                .badNegation, "double negation", at: dash,
                hint: "use one \"-\", or quote a word that starts with \"-\"")
        }
        return .not(try parsePositiveTerm(&s))
    }

    /// Reads one term without a leading `-`: `@user`, a quoted phrase, `field:value`, `#N` or a bare word.
    static func parsePositiveTerm(_ s: inout QueryScanner) throws(QueryError) -> QueryTerm {
        let start = s.index
        if s.peek == "@" {
            s.index += 1
            return .assignee(try s.readAlternatives(field: "@", fieldStart: start).map(assigneeValue))
        }
        if s.peek == "\"" {
            let phrase = try s.readQuoted()
            try s.expectTermEnd()
            return .word(phrase)
        }
        if let name = s.readFieldName() {
            return try parseFilter(name.lowercased(), written: name, at: start, &s)
        }
        let word = try s.readBare(stopAtBar: false)
        if word.hasPrefix("#"), let n = cardNumber(word.dropFirst()) { return .number(n) }
        return .word(word)
    }

    /// Reads the value of `field:` (already consumed) and builds its term.
    static func parseFilter(
        _ field: String, written: String, at start: Int, _ s: inout QueryScanner
    ) throws(QueryError) -> QueryTerm {
        guard QuerySyntax.fields.contains(field) else {
            let hint = QuerySyntax.suggestion(for: field).map { "did you mean \($0)?" }
                ?? "filters are " + QuerySyntax.fields.joined(separator: ", ") + "; quote text that contains \":\""
            throw s.error(.unknownFilter, "unknown filter \"\(written)\"", at: start, hint: hint)
        }
        let values = try s.readAlternatives(field: field + ":", fieldStart: start)
        switch field {
        case "label": return .label(values.map(\.text))
        case "assignee": return .assignee(values.map(assigneeValue))
        case "column": return .column(values.map(\.text))
        case "ref": return .ref(values.map(\.text))
        case "blocks": return .blocks(values.map(\.text))
        case "milestone":
            return .milestone(values.map { $0.keyword == "none" ? .none : .named($0.text) })
        case "due":
            var due: [QueryTerm.DueValue] = []
            for value in values {
                guard let parsed = QueryTerm.DueValue(value.text) else {
                    let date = QueryTerm.DueValue.splitComparison(value.text)
                    throw s.error(
                        .badValue, "bad date \"\(date.date)\" in due:",
                        at: value.index + (value.quoted ? 1 : 0) + date.comparison.count,
                        hint: "expected overdue, today, week, none, any, or a date YYYY-MM-DD, with < <= > or >= before it to compare")
                }
                due.append(parsed)
            }
            return .due(due)
        case "status":
            return .status(try statuses(values, field: "status", s))
        case "no":
            return try parseNo(values, s)
        default:
            return try parseIs(values, at: start, s)
        }
    }

    /// Builds the term for `is:open`, `is:closed`, `is:open|closed`, `is:archived` or `is:overdue`.
    static func parseIs(_ values: [QueryValue], at start: Int, _ s: QueryScanner) throws(QueryError) -> QueryTerm {
        if values.count == 1 {
            switch values[0].text.lowercased() {
            case "archived": return .archived
            case "overdue": return .due([.overdue])
            case "blocked": return .blocked
            default: break
            }
        }
        for value in values where ["archived", "overdue", "blocked"].contains(value.text.lowercased()) {
            throw s.error(.badValue, "is:\(value.text) cannot have alternatives", at: start)
        }
        return .status(try statuses(values, field: "is", s))
    }

    /// Builds the term for `no:milestone`, `no:due` or `no:assignee`: the same as `milestone:none`, `due:none` and
    /// `assignee:none` (and printed that way).
    static func parseNo(_ values: [QueryValue], _ s: QueryScanner) throws(QueryError) -> QueryTerm {
        let allowed = QuerySyntax.noValues.joined(separator: ", ")
        guard values.count == 1 else {
            throw s.error(.badValue, "no: takes one of \(allowed), without alternatives", at: values.dropFirst().first?.index ?? 0)
        }
        switch values[0].text.lowercased() {
        case "milestone": return .milestone([.none])
        case "due": return .due([.none])
        case "assignee": return .assignee([.none])
        default:
            throw s.error(.badValue, "no: must be \(allowed), not \"\(values[0].text)\"", at: values[0].index)
        }
    }

    /// Reads `open` / `closed` alternatives.
    static func statuses(
        _ values: [QueryValue], field: String, _ s: QueryScanner
    ) throws(QueryError) -> [QueryTerm.StatusValue] {
        var result: [QueryTerm.StatusValue] = []
        for value in values {
            guard let status = QueryTerm.StatusValue(rawValue: value.text.lowercased()) else {
                let allowed = field == "is" ? "open, closed, archived, overdue or blocked" : "open or closed"
                throw s.error(.badValue, "\(field) must be \(allowed), not \"\(value.text)\"", at: value.index)
            }
            result.append(status)
        }
        return result
    }

    /// Reads one `assignee:` alternative: unquoted `me` and `none` (any case) are keywords.
    static func assigneeValue(_ value: QueryValue) -> QueryTerm.AssigneeValue {
        switch value.keyword {
        case "me": .me
        case "none": .none
        default: .user(value.text)
        }
    }

    /// The number in `#N`: one or more ASCII digits that fit an `Int`.
    static func cardNumber(_ digits: Substring) -> Int? {
        guard !digits.isEmpty, digits.unicodeScalars.allSatisfy({ $0 >= "0" && $0 <= "9" }) else { return nil }
        return Int(digits)
    }
}

extension QueryValue {
    /// The lowercased text when written bare (so it can be a keyword), nil when quoted.
    var keyword: String? { quoted ? nil : text.lowercased() }
}
