/// A typed string identifier: `Identifier<Card>` and `Identifier<Label>` cannot be mixed up.
///
/// On the wire an identifier is a plain JSON string of 1–64 characters from `[A-Za-z0-9_.-]`.
public struct Identifier<Tag>: Hashable, Comparable, Sendable, Codable, CustomStringConvertible,
    ExpressibleByStringLiteral, CodingKeyRepresentable
{
    /// The identifier's text.
    public let rawValue: String

    /// Wraps `rawValue` without validating it; use `isValid` or `Identifier(validating:)` on untrusted input.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Wraps a literal; literals in code are trusted.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// Wraps `raw` only when it is a well-formed identifier.
    public init?(validating raw: String) {
        guard Identifier.isWellFormed(raw) else { return nil }
        self.rawValue = raw
    }

    /// Whether the text is a well-formed identifier (1–64 characters from `[A-Za-z0-9_.-]`).
    public var isValid: Bool { Identifier.isWellFormed(rawValue) }

    /// The identifier's text.
    public var description: String { rawValue }

    /// Whether `raw` is 1–`Limits.idMaxLength` bytes of `[A-Za-z0-9_.-]`.
    public static func isWellFormed(_ raw: String) -> Bool {
        let bytes = raw.utf8
        guard !bytes.isEmpty, bytes.count <= Limits.idMaxLength else { return false }
        return bytes.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                || b == 0x5F || b == 0x2D || b == 0x2E
        }
    }

    /// Orders identifiers byte-wise, like ranks.
    public static func < (lhs: Identifier, rhs: Identifier) -> Bool {
        lhs.rawValue.utf8.lexicographicallyPrecedes(rhs.rawValue.utf8)
    }

    /// Decodes from a JSON string.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes as a JSON string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The identifier as a dictionary key.
    public var codingKey: any CodingKey { AnyKey(rawValue) }

    /// Reads an identifier from a dictionary key.
    public init?<T: CodingKey>(codingKey: T) { self.rawValue = codingKey.stringValue }
}

/// A `CodingKey` made from any string.
struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// Identifies a board.
public typealias BoardID = Identifier<Board>
/// Identifies a column within a board.
public typealias ColumnID = Identifier<Column>
/// Identifies a card within a board (chosen by the client that adds it, so optimistic ops can refer to it).
public typealias CardID = Identifier<Card>
/// Identifies a label within a board.
public typealias LabelID = Identifier<Label>
/// Identifies a milestone within a board.
public typealias MilestoneID = Identifier<Milestone>
/// Identifies a comment within a card.
public typealias CommentID = Identifier<Comment>
/// Identifies a checklist item within a card.
public typealias ChecklistItemID = Identifier<ChecklistItem>
/// Identifies a user (the user name, e.g. `alice`).
public typealias UserID = Identifier<Member>
