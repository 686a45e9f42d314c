/// The fields an op's JSON object may have, by their wire names.
///
/// Every op's fields are declared once, in `Op.init(kind:reading:)` and `Op.writeFields(to:)` (`Op+Fields.swift`);
/// the formats only say how to read and write a value of each JSON shape: Codable's containers (`Op+Codable.swift`),
/// the server's tape of a client's line (`TapeReader+Op.swift`) and the server's byte writer (`LineWriter+Delta.swift`).
public enum OpField: Sendable, CaseIterable {
    case kind, name, user, role, column, index, limit, hard, card, toColumn, after, before, rank, title, description
    case baseSeq, due, labels, assignees, milestone, ref, label, item, text, done, comment, color, by, force, recur
    case inProgress, hours, createdAt, baseTitle

    /// The field's JSON name.
    public var name: StaticString {
        switch self {
        case .kind: "kind"
        case .name: "name"
        case .user: "user"
        case .role: "role"
        case .column: "column"
        case .index: "index"
        case .limit: "limit"
        case .hard: "hard"
        case .card: "card"
        case .toColumn: "to_column"
        case .after: "after"
        case .before: "before"
        case .rank: "rank"
        case .title: "title"
        case .description: "description"
        case .baseSeq: "base_seq"
        case .baseTitle: "base_title"
        case .due: "due"
        case .labels: "labels"
        case .assignees: "assignees"
        case .milestone: "milestone"
        case .ref: "ref"
        case .label: "label"
        case .item: "item"
        case .text: "text"
        case .done: "done"
        case .comment: "comment"
        case .color: "color"
        case .by: "by"
        case .force: "force"
        case .recur: "recur"
        case .inProgress: "in_progress"
        case .hours: "hours"
        case .createdAt: "created_at"
        }
    }
}

/// A value an op carries as a JSON string: an identifier, a date, a colour, a role, a rank or plain text.
public protocol OpText: Codable, Hashable, Sendable {
    /// The value `text` stands for, or nil when it stands for none (a date that is not a date).
    init?(opText text: String)
    /// The value as it is written.
    var opText: String { get }
}

extension String: OpText {
    public init?(opText text: String) { self = text }
    public var opText: String { self }
}

extension Identifier: OpText {
    public init?(opText text: String) { self.init(text) }
    public var opText: String { rawValue }
}

extension Day: OpText {
    public init?(opText text: String) { self.init(text) }
    public var opText: String { description }
}

extension HexColor: OpText {
    public init?(opText text: String) { self.init(text) }
    public var opText: String { description }
}

extension Role: OpText {
    public init?(opText text: String) { self.init(rawValue: text) }
    public var opText: String { rawValue }
}

extension Rank: OpText {
    public init?(opText text: String) { self.init(text) }
    public var opText: String { rawValue }
}

/// Where an op's fields are read from. Absent and null read alike as nil (or an empty list) for an optional field;
/// a clearable field tells them apart (absent: leave it, null: clear it).
public protocol OpFieldReader {
    /// What a field of the wrong JSON type, a missing one or a value out of range throws.
    associatedtype Failure: Error
    func text<T: OpText>(_ field: OpField) throws(Failure) -> T
    func optionalText<T: OpText>(_ field: OpField) throws(Failure) -> T?
    func clearable<T: OpText>(_ field: OpField) throws(Failure) -> Clearable<T>?
    /// A list of texts; absent or null: empty.
    func texts<T: OpText>(_ field: OpField) throws(Failure) -> [T]
    func int(_ field: OpField) throws(Failure) -> Int
    func optionalInt(_ field: OpField) throws(Failure) -> Int?
    func optionalSeq(_ field: OpField) throws(Failure) -> UInt64?
    func bool(_ field: OpField) throws(Failure) -> Bool
    func optionalBool(_ field: OpField) throws(Failure) -> Bool?
    func optionalTimestamp(_ field: OpField) throws(Failure) -> Timestamp?
    /// A recurrence rule, which must be there: null says the card no longer recurs.
    func recurrence(_ field: OpField) throws(Failure) -> Recurrence?
}

/// Where an op's fields are written, in the order `Op.writeFields(to:)` gives them; a nil value is left out.
public protocol OpFieldWriter {
    associatedtype Failure: Error
    mutating func text<T: OpText>(_ field: OpField, _ value: T) throws(Failure)
    mutating func texts<T: OpText>(_ field: OpField, _ values: [T]) throws(Failure)
    mutating func int(_ field: OpField, _ value: Int) throws(Failure)
    mutating func seq(_ field: OpField, _ value: UInt64) throws(Failure)
    mutating func bool(_ field: OpField, _ value: Bool) throws(Failure)
    mutating func timestamp(_ field: OpField, _ value: Timestamp) throws(Failure)
    mutating func recurrence(_ field: OpField, _ value: Recurrence) throws(Failure)
    mutating func null(_ field: OpField) throws(Failure)
}

extension OpFieldWriter {
    @inlinable public mutating func text<T: OpText>(_ field: OpField, _ value: T?) throws(Failure) {
        if let value { try text(field, value) }
    }

    @inlinable public mutating func int(_ field: OpField, _ value: Int?) throws(Failure) {
        if let value { try int(field, value) }
    }

    @inlinable public mutating func bool(_ field: OpField, _ value: Bool?) throws(Failure) {
        if let value { try bool(field, value) }
    }

    /// Absent when nil, `null` when cleared.
    @inlinable public mutating func clearable<T: OpText>(_ field: OpField, _ value: Clearable<T>?) throws(Failure) {
        switch value {
        case nil: break
        case .clear?: try null(field)
        case .set(let v)?: try text(field, v)
        }
    }
}
