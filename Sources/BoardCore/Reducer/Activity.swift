/// One typed record per committed change: what happened, who did it, and each field's old and new value.
///
/// Activity feeds per-card history, the chat-style feed, mentions and bots. Chat messages are activity too.
public struct Activity: Hashable, Sendable, Codable {
    /// The change's sequence number on its board.
    public var seq: UInt64
    /// When the server applied it.
    public var at: Timestamp
    /// Who made it.
    public var actor: UserID
    /// The op kind, e.g. `card.move` or `chat`.
    public var kind: String
    /// The card it concerns.
    public var card: CardID?
    /// The column it concerns (column ops).
    public var column: ColumnID?
    /// The label it concerns (label ops).
    public var label: LabelID?
    /// The milestone it concerns (milestone ops).
    public var milestone: MilestoneID?
    /// The member it concerns (member ops).
    public var member: UserID?
    /// The comment it concerns (comment ops).
    public var comment: CommentID?
    /// The checklist item it concerns (checklist ops).
    public var item: ChecklistItemID?
    /// The text of a chat message or comment.
    public var text: String?
    /// Each changed field with `[old, new]`; `null` stands for "absent".
    public var changes: [String: FieldChange]
    /// A non-fatal note, e.g. `wip_exceeded` when a soft WIP limit was passed.
    public var warning: String?
    /// When this change undid an earlier one, that change's seq.
    public var undoOf: UInt64?
    /// The names of what the record mentions as they were at the change (absent in records stored before names
    /// existed).
    public var names: ActivityNames?

    /// Makes an activity record.
    public init(
        seq: UInt64, at: Timestamp, actor: UserID, kind: String, card: CardID? = nil, column: ColumnID? = nil,
        label: LabelID? = nil, milestone: MilestoneID? = nil, member: UserID? = nil, comment: CommentID? = nil,
        item: ChecklistItemID? = nil, text: String? = nil, changes: [String: FieldChange] = [:],
        warning: String? = nil, undoOf: UInt64? = nil, names: ActivityNames? = nil
    ) {
        self.seq = seq
        self.at = at
        self.actor = actor
        self.kind = kind
        self.card = card
        self.column = column
        self.label = label
        self.milestone = milestone
        self.member = member
        self.comment = comment
        self.item = item
        self.text = text
        self.changes = changes
        self.warning = warning
        self.undoOf = undoOf
        self.names = names
    }

    enum CodingKeys: String, CodingKey {
        case seq, at, actor, kind, card, column, label, milestone, member, comment, item, text, changes, warning
        case undoOf = "undo_of"
        case names
    }
}

/// A field's value before and after a change, written `[old, new]` on the wire.
public struct FieldChange: Hashable, Sendable, Codable {
    /// The value before.
    public var old: JSONValue
    /// The value after.
    public var new: JSONValue

    /// Makes a field change.
    public init(old: JSONValue, new: JSONValue) {
        self.old = old
        self.new = new
    }

    /// Decodes `[old, new]`.
    public init(from decoder: any Decoder) throws {
        var c = try decoder.unkeyedContainer()
        old = try c.decode(JSONValue.self)
        new = try c.decode(JSONValue.self)
        guard c.isAtEnd else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "expected [old, new]")
        }
    }

    /// Encodes `[old, new]`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.unkeyedContainer()
        try c.encode(old)
        try c.encode(new)
    }
}
