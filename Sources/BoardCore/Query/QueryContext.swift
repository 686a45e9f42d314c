/// What a query needs to know besides the board: the date and who is asking.
///
/// The query language is pure: it never reads a clock, so `today` is always an input.
public struct QueryContext: Hashable, Sendable {
    /// The current day, for `due:overdue`, `due:today` and `due:week`.
    public var today: Day
    /// The user asking, for `@me`; nil when there is none (then `@me` matches nothing).
    public var me: UserID?

    /// Makes a context.
    public init(today: Day, me: UserID? = nil) {
        self.today = today
        self.me = me
    }
}
