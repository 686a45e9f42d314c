/// What follows `/add` in the input line, split into the title and the options of the one-shot `cork add`:
/// `/add TITLE [--column COLUMN] [--label LABEL]… [--due YYYY-MM-DD] [--assign USER]… [--desc TEXT] [--ref REF]
/// [--milestone MILESTONE]`.
///
/// Options may stand anywhere among the title's words, as `--name VALUE` or `--name=VALUE`; a value with spaces is
/// written in double quotes (`--desc "all of it"`). The title's own words are kept as typed, quotes included, except
/// a pair that encloses the whole title and nothing else quoted, which was typed as on a shell
/// (`/add "Deploy: EU" --label ops` adds `Deploy: EU`). `--` ends the options: the rest of the line is the title as
/// typed, so a title can start with `--` (or be in quotes). Splitting never
/// fails (the input line's counter splits the line as it is typed); ``request()`` says what is wrong.
struct AddCommandLine: Hashable, Sendable {
    /// One `--name value`.
    struct Option: Hashable, Sendable {
        /// The name, without its dashes.
        var name: String
        /// The value, without quotes; nil when none followed.
        var value: String?
    }

    /// The title: the words that are not options, as typed.
    private(set) var title = ""
    /// The options, in the order typed.
    private(set) var options: [Option] = []
    /// The first thing typed wrong (an option without its value, an unclosed quote), or nil.
    private(set) var problem: String?

    /// The options `/add` takes: those of `cork add`, without `--json` (which only prints).
    static let names = ["column", "label", "due", "assign", "desc", "description", "ref", "milestone"]
    /// How to type `/add`, for its error messages and the help.
    static let usage =
        "/add TITLE [--column COLUMN] [--label LABEL]… [--due YYYY-MM-DD] [--assign USER]… [--desc TEXT] [--ref REF] [--milestone M]"

    /// Splits `text`, what follows `/add `.
    init(_ text: String) {
        var rest = Substring(text)
        var words: [Substring] = []
        var asTyped = false
        while true {
            rest = rest.drop { $0 == " " }
            guard !rest.isEmpty else { break }
            let word = rest.prefix { $0 != " " }
            if word == "--" {
                let typed = rest.dropFirst(2).drop { $0 == " " }
                if !typed.isEmpty { words.append(typed) }
                asTyped = true
                break
            }
            guard word.hasPrefix("--") else {
                words.append(word)
                rest = rest.dropFirst(word.count)
                continue
            }
            let body = rest.dropFirst(2)
            let name = body.prefix { $0 != " " && $0 != "=" }
            rest = body.dropFirst(name.count)
            if rest.first == "=" {
                rest = rest.dropFirst()
            } else {
                rest = rest.drop { $0 == " " }
                // Another option, or the end: this one has no value.
                if rest.isEmpty || rest.hasPrefix("--") {
                    options.append(Option(name: String(name), value: nil))
                    continue
                }
            }
            options.append(Option(name: String(name), value: value(of: String(name), from: &rest)))
        }
        title = words.joined(separator: " ")
        if !asTyped { title = Self.unquoted(title) }
    }

    /// `text` without a pair of double quotes that encloses all of it and nothing else quoted (a title typed as on a
    /// shell); otherwise `text` as it is.
    static func unquoted(_ text: String) -> String {
        guard text.count >= 2, text.first == "\"", text.last == "\"", !text.dropFirst().dropLast().contains("\"")
        else { return text }
        return String(text.dropFirst().dropLast())
    }

    /// Reads an option's value from the front of `rest`: a quoted run, or one word.
    private mutating func value(of name: String, from rest: inout Substring) -> String {
        guard rest.first == "\"" else {
            let word = rest.prefix { $0 != " " }
            rest = rest.dropFirst(word.count)
            return String(word)
        }
        let quoted = rest.dropFirst()
        guard let close = quoted.firstIndex(of: "\"") else {
            if problem == nil { problem = "unclosed quote in the value of --\(name)" }
            rest = rest.dropFirst(rest.count)
            return String(quoted)
        }
        rest = quoted[quoted.index(after: close)...]
        return String(quoted[..<close])
    }

    /// What `cork add` would be given: the title and every option, checked; a usage error for an unknown option,
    /// an option without its value, an unclosed quote or no title.
    func request() throws(TUIUsage) -> CardOps.AddRequest {
        if let problem { throw TUIUsage(message: "/add: \(problem)") }
        var request = CardOps.AddRequest(title: title)
        for option in options {
            guard AddCommandLine.names.contains(option.name) else {
                throw TUIUsage(message: "/add: unknown option --\(option.name) (it takes "
                    + AddCommandLine.names.map { "--\($0)" }.joined(separator: " ")
                    + "; a title that starts with -- goes after --)")
            }
            guard let value = option.value else { throw TUIUsage(message: "/add: --\(option.name) needs a value") }
            switch option.name {
            case "column": request.column = value
            case "label": request.labels.append(value)
            case "due": request.due = value
            case "assign": request.assignees.append(value)
            case "desc", "description": request.description = value
            case "ref": request.ref = value
            default: request.milestone = value
            }
        }
        guard !title.isEmpty else { throw TUIUsage(message: AddCommandLine.usage) }
        return request
    }
}
