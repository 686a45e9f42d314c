import BoardCore

/// Joins and leaves folded into one feed line: who came and who went, how often, in order of first appearance.
///
/// `bob joined and left ×2 · carol joined`. A burst of comings and goings (a bot's one-shot commands, people
/// reconnecting) then costs one line instead of one each.
public struct PresenceTally: Hashable, Sendable {
    /// One person's joins and leaves.
    struct Count: Hashable, Sendable {
        var user: UserID
        var joined = 0
        var left = 0
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
            counts.append(Count(user: user))
            return counts.count - 1
        }()
        if joined { counts[index].joined += 1 } else { counts[index].left += 1 }
    }

    /// The feed line.
    public var text: String {
        var parts = counts.prefix(Self.namedMax).map { count -> String in
            let times = max(count.joined, count.left)
            let verb = count.joined > 0 && count.left > 0 ? "joined and left" : count.joined > 0 ? "joined" : "left"
            return "\(count.user) \(verb)\(times > 1 ? " ×\(times)" : "")"
        }
        if counts.count > Self.namedMax { parts.append("\(counts.count - Self.namedMax) more came or went") }
        return parts.joined(separator: " · ")
    }
}
