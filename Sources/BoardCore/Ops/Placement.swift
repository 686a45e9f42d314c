/// Where a card should go within a column: an intent, turned into a rank by the reducer.
///
/// With `after`, the card goes right after that card; with `before`, right before it; with both, `after` wins
/// when they are no longer neighbours. `index` counts unarchived cards from the top (0) and is clamped.
/// `rank` asks for a position by rank (used by undo). With nothing set, the card goes to the bottom.
public struct Placement: Hashable, Sendable {
    /// Put the card right after this one.
    public var after: CardID?
    /// Put the card right before this one.
    public var before: CardID?
    /// Put the card at this index among the column's unarchived cards.
    public var index: Int?
    /// Put the card at this rank, or as near to it as free ranks allow.
    public var rank: Rank?

    /// Makes a placement; all nil means the bottom of the column.
    public init(after: CardID? = nil, before: CardID? = nil, index: Int? = nil, rank: Rank? = nil) {
        self.after = after
        self.before = before
        self.index = index
        self.rank = rank
    }

    /// The bottom of the column.
    public static let bottom = Placement()
    /// The top of the column.
    public static let top = Placement(index: 0)

    /// Whether no position was asked for.
    public var isBottom: Bool { after == nil && before == nil && index == nil && rank == nil }
}
