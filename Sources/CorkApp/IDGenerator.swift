import BoardCore

/// New ids for cards, comments and checklist items a command creates: a prefix and 10 random base-36 characters
/// (about 52 bits), e.g. `c4k2m9x0q1z`.
public enum IDGenerator {
    /// The characters ids are made of.
    public static let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyz")
    /// How many random characters follow the prefix.
    public static let randomLength = 10

    /// `prefix` and `randomLength` random base-36 characters from `generator`.
    public static func make<G: RandomNumberGenerator>(prefix: String, using generator: inout G) -> String {
        var id = prefix
        for _ in 0..<randomLength { id.append(alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))]) }
        return id
    }

    /// A new card id, `c…`.
    public static func cardID() -> CardID {
        var generator = SystemRandomNumberGenerator()
        return CardID(make(prefix: "c", using: &generator))
    }

    /// A new comment id, `m…`.
    public static func commentID() -> CommentID {
        var generator = SystemRandomNumberGenerator()
        return CommentID(make(prefix: "m", using: &generator))
    }

    /// A new checklist item id, `i…`.
    public static func checklistItemID() -> ChecklistItemID {
        var generator = SystemRandomNumberGenerator()
        return ChecklistItemID(make(prefix: "i", using: &generator))
    }
}
