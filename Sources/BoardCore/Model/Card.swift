/// A card: one task on the board.
///
/// Ops set a card's fields one by one; nothing replaces a whole card.
public struct Card: Hashable, Sendable, Codable, Identifiable {
    /// The card's identifier (chosen by the client that added it).
    public var id: CardID
    /// The short per-board number shown as `#N`, assigned in server order.
    public var number: Int
    /// The column the card sits in.
    public var column: ColumnID
    /// Its position within the column: cards sort by rank, then by id.
    public var rank: Rank
    /// The one-line title.
    public var title: String
    /// The long description (Markdown is left to the reader).
    public var description: String
    /// The `seq` of the change that last set the description (0 = never), for conflict checks.
    public var descriptionSeq: UInt64
    /// When the card is due.
    public var due: Day?
    /// The labels it carries, sorted by id.
    public var labels: [LabelID]
    /// The members it is assigned to, sorted by id.
    public var assignees: [UserID]
    /// The milestone it belongs to.
    public var milestone: MilestoneID?
    /// Its checklist, in order.
    public var checklist: [ChecklistItem]
    /// Its comments, oldest first.
    public var comments: [Comment]
    /// Closed or open; independent of the column.
    public var closed: Bool
    /// Archived cards are hidden from the board and restorable.
    public var archived: Bool
    /// An external reference such as `JIRA-12` or `ci:build-7`, unique per board.
    public var ref: String?
    /// The cards this one waits for, sorted by id; a blocker stops counting once it is done (closed or in the last
    /// column), archived or purged (``Board/blockers(of:)``).
    public var blockedBy: [CardID] = []
    /// How the card comes back once done; nil: it does not.
    public var recur: Recurrence?
    /// Members who pressed watch (besides its creator and assignees, who watch it anyway), sorted.
    public var watchers: [UserID] = []
    /// Who added the card.
    public var createdBy: UserID
    /// When the card was added.
    public var createdAt: Timestamp
    /// Who last changed it.
    public var updatedBy: UserID
    /// When it last changed.
    public var updatedAt: Timestamp

    /// Makes a card; fields not given start empty.
    public init(
        id: CardID, number: Int, column: ColumnID, rank: Rank, title: String, description: String = "",
        descriptionSeq: UInt64 = 0, due: Day? = nil, labels: [LabelID] = [], assignees: [UserID] = [],
        milestone: MilestoneID? = nil, checklist: [ChecklistItem] = [], comments: [Comment] = [],
        closed: Bool = false, archived: Bool = false, ref: String? = nil,
        createdBy: UserID, createdAt: Timestamp, updatedBy: UserID? = nil, updatedAt: Timestamp? = nil
    ) {
        self.id = id
        self.number = number
        self.column = column
        self.rank = rank
        self.title = title
        self.description = description
        self.descriptionSeq = descriptionSeq
        self.due = due
        self.labels = labels
        self.assignees = assignees
        self.milestone = milestone
        self.checklist = checklist
        self.comments = comments
        self.closed = closed
        self.archived = archived
        self.ref = ref
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.updatedBy = updatedBy ?? createdBy
        self.updatedAt = updatedAt ?? createdAt
    }

    /// Decodes a card; `blocked_by` may be absent (no dependencies), as in boards stored before it existed.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(CardID.self, forKey: .id)
        number = try c.decode(Int.self, forKey: .number)
        column = try c.decode(ColumnID.self, forKey: .column)
        rank = try c.decode(Rank.self, forKey: .rank)
        title = try c.decode(String.self, forKey: .title)
        description = try c.decode(String.self, forKey: .description)
        descriptionSeq = try c.decode(UInt64.self, forKey: .descriptionSeq)
        due = try c.decodeIfPresent(Day.self, forKey: .due)
        labels = try c.decode([LabelID].self, forKey: .labels)
        assignees = try c.decode([UserID].self, forKey: .assignees)
        milestone = try c.decodeIfPresent(MilestoneID.self, forKey: .milestone)
        checklist = try c.decode([ChecklistItem].self, forKey: .checklist)
        comments = try c.decode([Comment].self, forKey: .comments)
        closed = try c.decode(Bool.self, forKey: .closed)
        archived = try c.decode(Bool.self, forKey: .archived)
        ref = try c.decodeIfPresent(String.self, forKey: .ref)
        blockedBy = try c.decodeIfPresent([CardID].self, forKey: .blockedBy) ?? []
        recur = try c.decodeIfPresent(Recurrence.self, forKey: .recur)
        watchers = try c.decodeIfPresent([UserID].self, forKey: .watchers) ?? []
        createdBy = try c.decode(UserID.self, forKey: .createdBy)
        createdAt = try c.decode(Timestamp.self, forKey: .createdAt)
        updatedBy = try c.decode(UserID.self, forKey: .updatedBy)
        updatedAt = try c.decode(Timestamp.self, forKey: .updatedAt)
    }

    /// Encodes a card; `blocked_by` only when it has blockers.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(number, forKey: .number)
        try c.encode(column, forKey: .column)
        try c.encode(rank, forKey: .rank)
        try c.encode(title, forKey: .title)
        try c.encode(description, forKey: .description)
        try c.encode(descriptionSeq, forKey: .descriptionSeq)
        try c.encodeIfPresent(due, forKey: .due)
        try c.encode(labels, forKey: .labels)
        try c.encode(assignees, forKey: .assignees)
        try c.encodeIfPresent(milestone, forKey: .milestone)
        try c.encode(checklist, forKey: .checklist)
        try c.encode(comments, forKey: .comments)
        try c.encode(closed, forKey: .closed)
        try c.encode(archived, forKey: .archived)
        try c.encodeIfPresent(ref, forKey: .ref)
        if !blockedBy.isEmpty { try c.encode(blockedBy, forKey: .blockedBy) }
        try c.encodeIfPresent(recur, forKey: .recur)
        if !watchers.isEmpty { try c.encode(watchers, forKey: .watchers) }
        try c.encode(createdBy, forKey: .createdBy)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(updatedBy, forKey: .updatedBy)
        try c.encode(updatedAt, forKey: .updatedAt)
    }

    /// Orders cards within a column: by rank, then by id.
    public static func positionOrder(_ a: Card, _ b: Card) -> Bool {
        a.rank != b.rank ? a.rank < b.rank : a.id < b.id
    }

    enum CodingKeys: String, CodingKey {
        case id, number, column, rank, title, description
        case descriptionSeq = "description_seq"
        case due, labels, assignees, milestone, checklist, comments, closed, archived, ref
        case blockedBy = "blocked_by"
        case recur, watchers
        case createdBy = "created_by"
        case createdAt = "created_at"
        case updatedBy = "updated_by"
        case updatedAt = "updated_at"
    }
}
