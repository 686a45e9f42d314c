/// One term of a search query: a filter that a card passes or fails.
///
/// A term whose value lists `|` alternatives passes when any alternative does. `Query` ANDs its terms.
public enum QueryTerm: Hashable, Sendable {
    /// Free text: a case-insensitive substring of the title, the description or the ref.
    ///
    /// A word of ASCII digits alone also matches the card with that number.
    case word(String)
    /// `#N`: the card with this number, exactly.
    case number(Int)
    /// `label:A|B`: the card carries a label whose name or id is one of these, ignoring case.
    case label([String])
    /// `assignee:A|B` or `@A|B`: the card's assignees include one of these.
    case assignee([AssigneeValue])
    /// `due:...`: the card's due date passes one of these.
    case due([DueValue])
    /// `is:open|closed` (also `status:open|closed`).
    case status([StatusValue])
    /// `column:A|B`: the card sits in a column whose name or id is one of these, ignoring case.
    case column([String])
    /// `milestone:A|B`: the card belongs to a milestone whose title or id is one of these, ignoring case.
    case milestone([MilestoneValue])
    /// `ref:GLOB|GLOB`: the card's ref matches one of these case-sensitive globs (`*` any run, `?` one character).
    case ref([String])
    /// `is:archived`: the card is archived. At the top of a query it also selects archived cards only.
    case archived
    /// `is:blocked`: the card waits for cards that are not done (`Board.blockers(of:)`).
    case blocked
    /// `blocks:A|B`: the card is one of the blockers of a card named here, by number (`#7` or `7`) or id.
    case blocks([String])
    /// `-TERM`: the card fails the term. Parsing never nests these (`--` is an error), so keep them one deep.
    indirect case not(QueryTerm)

    /// One alternative of `assignee:`.
    public enum AssigneeValue: Hashable, Sendable {
        /// `me`: the user in `QueryContext.me`.
        case me
        /// `none`: the card has no assignee.
        case none
        /// A user id, compared ignoring case (quote `"me"` or `"none"` to mean a user of that name).
        case user(String)
    }

    /// One alternative of `due:`.
    public enum DueValue: Hashable, Sendable {
        /// `overdue`: due before today and not done (`Board.isOverdue(_:today:)`).
        case overdue
        /// `today`: due today.
        case today
        /// `week`: due today or in the six days after it.
        case week
        /// `none`: no due date.
        case none
        /// `any`: some due date.
        case any
        /// `YYYY-MM-DD`: due on that day.
        case on(Day)
        /// `<YYYY-MM-DD`: due before that day.
        case before(Day)
        /// `<=YYYY-MM-DD`: due on or before that day.
        case onOrBefore(Day)
        /// `>YYYY-MM-DD`: due after that day.
        case after(Day)
        /// `>=YYYY-MM-DD`: due on or after that day.
        case onOrAfter(Day)
    }

    /// One alternative of `status:`.
    public enum StatusValue: String, Hashable, Sendable, CaseIterable {
        /// The card is open.
        case open
        /// The card is closed.
        case closed
    }

    /// One alternative of `milestone:`.
    public enum MilestoneValue: Hashable, Sendable {
        /// `none`: the card belongs to no milestone.
        case none
        /// A milestone title or id, compared ignoring case (quote `"none"` to mean a milestone of that title).
        case named(String)
    }
}

extension QueryTerm.DueValue: CustomStringConvertible {
    /// The value as written in a query, e.g. `overdue` or `<=2026-12-01`.
    public var description: String {
        switch self {
        case .overdue: "overdue"
        case .today: "today"
        case .week: "week"
        case .none: "none"
        case .any: "any"
        case .on(let day): "\(day)"
        case .before(let day): "<\(day)"
        case .onOrBefore(let day): "<=\(day)"
        case .after(let day): ">\(day)"
        case .onOrAfter(let day): ">=\(day)"
        }
    }

    /// Reads a `due:` value (keywords ignore case); nil when it is neither a keyword nor an optionally compared date.
    public init?(_ text: String) {
        switch text.lowercased() {
        case "overdue": self = .overdue
        case "today": self = .today
        case "week": self = .week
        case "none": self = .none
        case "any": self = .any
        default:
            let (comparison, date) = QueryTerm.DueValue.splitComparison(text)
            guard let day = Day(date) else { return nil }
            switch comparison {
            case "<": self = .before(day)
            case "<=": self = .onOrBefore(day)
            case ">": self = .after(day)
            case ">=": self = .onOrAfter(day)
            default: self = .on(day)
            }
        }
    }

    /// Splits a leading `<`, `<=`, `>` or `>=` from the date after it.
    static func splitComparison(_ text: String) -> (comparison: String, date: String) {
        for op in ["<=", ">=", "<", ">"] where text.hasPrefix(op) {
            return (op, String(text.dropFirst(op.count)))
        }
        return ("", text)
    }
}
