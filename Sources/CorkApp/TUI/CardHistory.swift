import BoardCore

/// The history shown in the card detail: asked for when the detail opens, then kept current from the live feed.
public struct CardHistory: Hashable, Sendable {
    /// Where the fetch is.
    public enum State: Hashable, Sendable {
        /// Asked for; no answer yet.
        case loading
        /// The card's activity records, oldest first, and whether older ones exist.
        case loaded([Activity], more: Bool)
        /// The fetch failed, with why.
        case failed(String)
    }

    /// The card.
    public var card: CardID
    /// Where the fetch is.
    public var state: State

    /// The most history lines the detail shows (the newest ones).
    public static let shownMax = 8
    /// The most records asked for (the newest ones).
    public static let fetchLimit = 50
    /// How long the answer is waited for (offline, the request waits for the reconnect). It also bounds how long
    /// quitting can wait for a fetch under way, which cannot be cancelled.
    public static let fetchTimeout: Duration = .seconds(10)

    /// A history for `card` in `state`.
    public init(card: CardID, state: State = .loading) {
        self.card = card
        self.state = state
    }

    /// Adds a record that arrived live, when the history is loaded and does not have it yet.
    public mutating func append(_ activity: Activity) {
        guard activity.card == card, case .loaded(var activities, let more) = state,
            !activities.contains(where: { $0.seq == activity.seq })
        else { return }
        activities.append(activity)
        state = .loaded(activities, more: more)
    }
}
