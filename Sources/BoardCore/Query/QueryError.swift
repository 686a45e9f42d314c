/// Why a query's text did not parse: what went wrong, where, and a hint when one helps.
///
/// `description` is the human message, e.g. `unknown filter "lable" at character 1 (did you mean label?)`.
public struct QueryError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of mistake, as a stable snake_case code for clients and bots.
    public enum Code: String, Hashable, Sendable, CaseIterable {
        /// A `field:` that the language does not know.
        case unknownFilter = "unknown_filter"
        /// A `"` with no closing `"`.
        case unterminatedQuote = "unterminated_quote"
        /// A backslash in quotes not followed by `"` or `\`.
        case badEscape = "bad_escape"
        /// A `"` in the middle of a bare word, or text straight after a closing `"`.
        case strayQuote = "stray_quote"
        /// A filter or `|` alternative with nothing in it.
        case emptyValue = "empty_value"
        /// A value the filter does not accept (a bad date, a status other than open or closed, ...).
        case badValue = "bad_value"
        /// A `-` with nothing (or another `-`) after it.
        case badNegation = "bad_negation"
    }

    /// The kind of mistake.
    public var code: Code
    /// What went wrong, without the position, e.g. `unknown filter "lable"`.
    public var message: String
    /// The 0-based character offset into the query text where the mistake is.
    public var position: Int
    /// A suggestion or the accepted values, e.g. `did you mean label?`.
    public var hint: String?

    /// Makes an error.
    public init(_ code: Code, _ message: String, at position: Int, hint: String? = nil) {
        self.code = code
        // It quotes the query's words: their control characters go escaped.
        self.message = JSONEscaping.controlsEscaped(message)
        self.position = position
        self.hint = hint
    }

    /// The full message: `MESSAGE at character N` (N counted from 1, as a person counts), then ` (HINT)` when
    /// there is a hint.
    public var description: String {
        var text = "\(message) at character \(position + 1)"
        if let hint { text += " (\(hint))" }
        return text
    }
}
