/// One `|` alternative of a filter's value, as written.
struct QueryValue: Hashable, Sendable {
    /// The text, unquoted and unescaped.
    var text: String
    /// Whether it was written in quotes (then keywords such as `none` are taken literally).
    var quoted: Bool
    /// Where it starts, in scalars.
    var index: Int
}

/// Reads query text one Unicode scalar at a time; errors report positions in characters.
///
/// Scalars (not characters) keep a `"` from fusing with a combining mark after it.
struct QueryScanner {
    /// The query text.
    let scalars: [Unicode.Scalar]
    /// The next scalar to read.
    var index = 0

    /// Starts reading `text`.
    init(_ text: String) { scalars = Array(text.unicodeScalars) }

    /// The next scalar, or nil at the end.
    var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    /// Whether the text is used up.
    var atEnd: Bool { index >= scalars.count }

    /// Whether the current term ends here (at a space or the end).
    var atTermEnd: Bool { peek.map(QuerySyntax.isSpace) ?? true }

    /// Skips the spaces between terms.
    mutating func skipSpaces() {
        while let s = peek, QuerySyntax.isSpace(s) { index += 1 }
    }

    /// The character offset of scalar `i`.
    func position(of i: Int) -> Int {
        var prefix = String.UnicodeScalarView()
        prefix.append(contentsOf: scalars[..<min(i, scalars.count)])
        return String(prefix).count
    }

    /// An error at scalar `i`.
    func error(_ code: QueryError.Code, _ message: String, at i: Int, hint: String? = nil) -> QueryError {
        QueryError(code, message, at: position(of: i), hint: hint)
    }

    /// Reads a field name: ASCII letters followed by `:`, consuming both; reads nothing and returns nil otherwise.
    mutating func readFieldName() -> String? {
        var end = index
        while end < scalars.count, scalars[end].isASCII, scalars[end].properties.isAlphabetic { end += 1 }
        guard end > index, end < scalars.count, scalars[end] == ":" else { return nil }
        var name = String.UnicodeScalarView()
        name.append(contentsOf: scalars[index..<end])
        index = end + 1
        return String(name)
    }

    /// Reads a `"`-quoted string starting at the opening quote, undoing `\"` and `\\`.
    mutating func readQuoted() throws(QueryError) -> String {
        let open = index
        index += 1
        var text = String.UnicodeScalarView()
        while let s = peek {
            index += 1
            if s == "\"" { return String(text) }
            guard s == "\\" else {
                text.append(s)
                continue
            }
            guard let escaped = peek else { break }
            guard escaped == "\"" || escaped == "\\" else {
                throw error(
                    .badEscape, "bad escape \"\\\(escaped)\"", at: index - 1,
                    hint: "only \\\" and \\\\ are allowed in quotes")
            }
            text.append(escaped)
            index += 1
        }
        throw error(.unterminatedQuote, "unterminated quote", at: open)
    }

    /// Reads unquoted text up to a space, the end, or (when `stopAtBar`) a `|`; a `"` inside is an error.
    mutating func readBare(stopAtBar: Bool) throws(QueryError) -> String {
        var text = String.UnicodeScalarView()
        while let s = peek, !QuerySyntax.isSpace(s), !(stopAtBar && s == "|") {
            guard s != "\"" else {
                throw error(.strayQuote, "unexpected quote", at: index, hint: "quote the whole value")
            }
            text.append(s)
            index += 1
        }
        return String(text)
    }

    /// Fails unless the term ends here (nothing may follow a closing quote but a space or `|` in a value).
    func expectTermEnd() throws(QueryError) {
        guard atTermEnd else {
            throw error(
                .strayQuote, "text after closing quote", at: index, hint: "add a space or quote the whole value")
        }
    }

    /// Reads a filter's value: one or more alternatives separated by `|`, each bare or quoted.
    ///
    /// `field` names the filter in messages (`label:` or `@`); `fieldStart` is where it was written.
    mutating func readAlternatives(field: String, fieldStart: Int) throws(QueryError) -> [QueryValue] {
        var values: [QueryValue] = []
        while true {
            let start = index
            if atTermEnd || peek == "|" {
                throw values.isEmpty
                    ? error(.emptyValue, "empty value for \(field)", at: fieldStart)
                    : error(.emptyValue, "empty alternative after \"|\" in \(field)", at: start - 1)
            }
            if peek == "\"" {
                values.append(QueryValue(text: try readQuoted(), quoted: true, index: start))
            } else {
                values.append(QueryValue(text: try readBare(stopAtBar: true), quoted: false, index: start))
            }
            if atTermEnd { return values }
            guard peek == "|" else { try expectTermEnd(); return values }
            index += 1
        }
    }
}
