import BoardCore

/// Joins and leaves folded into one feed line: who came and who went, how often, in order of first appearance.
///
/// `bob joined and left ×2 · carol joined · dave left and came back`. A burst of comings and goings (a bot's one-shot commands, people
/// reconnecting) then costs one line instead of one each.
public struct PresenceTally: Hashable, Sendable {
    /// One person's joins and leaves.
    struct Count: Hashable, Sendable {
        var user: UserID
        var joined = 0
        var left = 0
        /// Whether the first and the last of them were joins: the line tells them in order, ending with where the
        /// person is now.
        var firstJoined = false
        var lastJoined = false
    }

    /// Per person, in order of first appearance.
    private(set) var counts: [Count] = []
    /// The most people named in the line; the rest are counted.
    static let namedMax = 4

    /// An empty tally.
    public init() {}

    /// Counts `user` joining (or leaving).
    public mutating func add(_ user: UserID, joined: Bool) {
        let index = counts.firstIndex { $0.user == user } ?? {
            counts.append(Count(user: user, firstJoined: joined))
            return counts.count - 1
        }()
        if joined { counts[index].joined += 1 } else { counts[index].left += 1 }
        counts[index].lastJoined = joined
    }

    /// The feed line.
    public var text: String {
        var parts = counts.prefix(Self.namedMax).map { count -> String in
            // In the order it happened, ending with where they are now: `left and came back` is here again.
            let (verb, times): (String, Int) =
                switch (count.joined > 0 && count.left > 0, count.firstJoined, count.lastJoined) {
                case (false, _, _): count.joined > 0 ? ("joined", count.joined) : ("left", count.left)
                case (true, true, false): ("joined and left", count.joined)
                case (true, false, true): ("left and came back", count.left)
                case (true, true, true): ("joined, left and came back", count.left)
                case (true, false, false): ("left, came back and left", count.joined)
                }
            return "\(count.user) \(verb)\(times > 1 ? " ×\(times)" : "")"
        }
        if counts.count > Self.namedMax { parts.append("\(counts.count - Self.namedMax) more came or went") }
        return parts.joined(separator: " · ")
    }
}
