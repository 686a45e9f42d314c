/// One edit of a board. Every op sets fields; none replaces a whole card.
///
/// On the wire an op is a flat JSON object whose `kind` names the case (`"card.move"`), see Protocol.md.
public enum Op: Hashable, Sendable {
    // Board and members
    /// Rename the board (owner).
    case renameBoard(name: String)
    /// Add a member or change their role and display name (owner).
    case setMember(user: UserID, role: Role, name: String?)
    /// Remove a member; their assignments are dropped (owner).
    case removeMember(user: UserID)

    // Columns
    /// Add a column at `index` (default: the right end).
    case addColumn(column: ColumnID, name: String, index: Int?)
    /// Rename a column.
    case renameColumn(column: ColumnID, name: String)
    /// Move a column to `index` (clamped).
    case moveColumn(column: ColumnID, index: Int)
    /// Remove a column that holds no cards (archived ones included).
    case removeColumn(column: ColumnID)
    /// Set or clear a column's WIP limit.
    case setWIPLimit(column: ColumnID, limit: WIPLimit?)

    // Cards
    /// Add a card.
    case addCard(AddCard)
    /// Set some of a card's plain fields.
    case editCard(EditCard)
    /// Move a card to a column and position (an intent; the reducer computes the rank).
    case moveCard(card: CardID, column: ColumnID, placement: Placement)
    /// Put a label on a card.
    case addLabel(card: CardID, label: LabelID)
    /// Take a label off a card.
    case removeLabel(card: CardID, label: LabelID)
    /// Assign a member to a card.
    case assign(card: CardID, user: UserID)
    /// Unassign a member from a card.
    case unassign(card: CardID, user: UserID)
    /// Close a card.
    case closeCard(card: CardID)
    /// Reopen a closed card.
    case reopenCard(card: CardID)
    /// Archive a card (what "delete" does: it can be restored).
    case archiveCard(card: CardID)
    /// Bring an archived card back.
    case restoreCard(card: CardID)
    /// Delete a card for good (owner); later ops on it fail with `gone`.
    case purgeCard(card: CardID)

    // Checklists
    /// Add a checklist item at `index` (default: the end), done or not.
    case addChecklistItem(card: CardID, item: ChecklistItemID, text: String, done: Bool, index: Int?)
    /// Change a checklist item's text or done flag.
    case editChecklistItem(card: CardID, item: ChecklistItemID, text: String?, done: Bool?)
    /// Remove a checklist item.
    case removeChecklistItem(card: CardID, item: ChecklistItemID)

    // Comments
    /// Comment on a card.
    case addComment(card: CardID, comment: CommentID, text: String)
    /// Edit one's own comment.
    case editComment(card: CardID, comment: CommentID, text: String)
    /// Delete a comment (its author, or an owner).
    case deleteComment(card: CardID, comment: CommentID)

    // Labels
    /// Create a label.
    case createLabel(label: LabelID, name: String, color: HexColor)
    /// Rename or recolour a label.
    case updateLabel(label: LabelID, name: String?, color: HexColor?)
    /// Delete a label; it comes off every card.
    case deleteLabel(label: LabelID)

    // Milestones
    /// Create a milestone.
    case createMilestone(milestone: MilestoneID, title: String, description: String?, due: Day?)
    /// Change a milestone's title, description or due date.
    case updateMilestone(milestone: MilestoneID, title: String?, description: String?, due: Clearable<Day>?)
    /// Close a milestone.
    case closeMilestone(milestone: MilestoneID)
    /// Reopen a milestone.
    case reopenMilestone(milestone: MilestoneID)
    /// Delete a milestone; its cards leave it.
    case deleteMilestone(milestone: MilestoneID)

    // Chat
    /// A chat message: no board change, but a persisted, searchable activity record.
    case chat(text: String)
}

/// The fields of a new card. The reducer assigns its number and rank.
public struct AddCard: Hashable, Sendable {
    /// The new card's id (chosen by the client; must be unused on this board).
    public var card: CardID
    /// The column to add it to (default: the first column).
    public var column: ColumnID?
    /// Where in the column (default: the bottom).
    public var placement: Placement
    /// The title (required).
    public var title: String
    /// The description.
    public var description: String
    /// The due date.
    public var due: Day?
    /// Labels to put on it.
    public var labels: [LabelID]
    /// Members to assign.
    public var assignees: [UserID]
    /// The milestone.
    public var milestone: MilestoneID?
    /// An external reference, unique per board.
    public var ref: String?

    /// Makes an add-card op.
    public init(
        card: CardID, column: ColumnID? = nil, placement: Placement = .bottom, title: String,
        description: String = "", due: Day? = nil, labels: [LabelID] = [], assignees: [UserID] = [],
        milestone: MilestoneID? = nil, ref: String? = nil
    ) {
        self.card = card
        self.column = column
        self.placement = placement
        self.title = title
        self.description = description
        self.due = due
        self.labels = labels
        self.assignees = assignees
        self.milestone = milestone
        self.ref = ref
    }
}

/// New values for some of a card's plain fields; nil leaves a field alone.
public struct EditCard: Hashable, Sendable {
    /// The card to edit.
    public var card: CardID
    /// A new title.
    public var title: String?
    /// A new description.
    public var description: String?
    /// The seq the description edit was based on: if the description changed after it, the edit is a `conflict`.
    public var baseSeq: UInt64?
    /// A new due date, or clear it.
    public var due: Clearable<Day>?
    /// A new milestone, or leave the milestone.
    public var milestone: Clearable<MilestoneID>?
    /// A new external reference, or clear it.
    public var ref: Clearable<String>?

    /// Makes an edit-card op.
    public init(
        card: CardID, title: String? = nil, description: String? = nil, baseSeq: UInt64? = nil,
        due: Clearable<Day>? = nil, milestone: Clearable<MilestoneID>? = nil, ref: Clearable<String>? = nil
    ) {
        self.card = card
        self.title = title
        self.description = description
        self.baseSeq = baseSeq
        self.due = due
        self.milestone = milestone
        self.ref = ref
    }

    /// Whether the edit sets no field at all.
    public var isEmpty: Bool { title == nil && description == nil && due == nil && milestone == nil && ref == nil }
}

extension Op {
    /// The op's wire name, e.g. `card.move`; also the `kind` of its activity record.
    public var kind: String {
        switch self {
        case .renameBoard: "board.rename"
        case .setMember: "member.set"
        case .removeMember: "member.remove"
        case .addColumn: "column.add"
        case .renameColumn: "column.rename"
        case .moveColumn: "column.move"
        case .removeColumn: "column.remove"
        case .setWIPLimit: "column.wip"
        case .addCard: "card.add"
        case .editCard: "card.edit"
        case .moveCard: "card.move"
        case .addLabel: "card.label"
        case .removeLabel: "card.unlabel"
        case .assign: "card.assign"
        case .unassign: "card.unassign"
        case .closeCard: "card.close"
        case .reopenCard: "card.reopen"
        case .archiveCard: "card.archive"
        case .restoreCard: "card.restore"
        case .purgeCard: "card.purge"
        case .addChecklistItem: "checklist.add"
        case .editChecklistItem: "checklist.edit"
        case .removeChecklistItem: "checklist.remove"
        case .addComment: "comment.add"
        case .editComment: "comment.edit"
        case .deleteComment: "comment.delete"
        case .createLabel: "label.create"
        case .updateLabel: "label.update"
        case .deleteLabel: "label.delete"
        case .createMilestone: "milestone.create"
        case .updateMilestone: "milestone.update"
        case .closeMilestone: "milestone.close"
        case .reopenMilestone: "milestone.reopen"
        case .deleteMilestone: "milestone.delete"
        case .chat: "chat"
        }
    }

    /// Every op kind's wire name.
    public static let allKinds: [String] = [
        "board.rename", "member.set", "member.remove",
        "column.add", "column.rename", "column.move", "column.remove", "column.wip",
        "card.add", "card.edit", "card.move", "card.label", "card.unlabel", "card.assign", "card.unassign",
        "card.close", "card.reopen", "card.archive", "card.restore", "card.purge",
        "checklist.add", "checklist.edit", "checklist.remove",
        "comment.add", "comment.edit", "comment.delete",
        "label.create", "label.update", "label.delete",
        "milestone.create", "milestone.update", "milestone.close", "milestone.reopen", "milestone.delete",
        "chat",
    ]

    /// The card the op is about, if any.
    public var card: CardID? {
        switch self {
        case .addCard(let a): a.card
        case .editCard(let e): e.card
        case .moveCard(let c, _, _), .addLabel(let c, _), .removeLabel(let c, _), .assign(let c, _),
            .unassign(let c, _), .closeCard(let c), .reopenCard(let c), .archiveCard(let c), .restoreCard(let c),
            .purgeCard(let c), .addChecklistItem(let c, _, _, _, _), .editChecklistItem(let c, _, _, _),
            .removeChecklistItem(let c, _), .addComment(let c, _, _), .editComment(let c, _, _),
            .deleteComment(let c, _):
            c
        default: nil
        }
    }
}
