/// One edit of a board. Every op sets fields; none replaces a whole card.
///
/// On the wire an op is a flat JSON object whose `kind` names the case (`"card.move"`), see Protocol.md.
public enum Op: Hashable, Sendable {
    // Board and members
    /// Rename the board (owner).
    case renameBoard(name: String)
    /// `board.remind`: how many hours before a card's due day its watchers are reminded (nil: the server's default).
    case setRemindHours(hours: Int?)
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
    /// Mark a column as in progress or not: a blocked card cannot enter one unless forced (default: `doing`).
    case setInProgress(column: ColumnID, on: Bool)

    // Cards
    /// Add a card.
    case addCard(AddCard)
    /// Set some of a card's plain fields.
    case editCard(EditCard)
    /// Move a card to a column and position (an intent; the reducer computes the rank). `force`: the reason an
    /// editor moves a blocked card into an in-progress column anyway (it goes in the activity).
    case moveCard(card: CardID, column: ColumnID, placement: Placement, force: String? = nil)
    /// Put a label on a card.
    case addLabel(card: CardID, label: LabelID)
    /// Take a label off a card.
    case removeLabel(card: CardID, label: LabelID)
    /// Assign a member to a card.
    case assign(card: CardID, user: UserID)
    /// Unassign a member from a card.
    case unassign(card: CardID, user: UserID)
    /// Record that `card` cannot go ahead until `by` is done (closed or in the last column).
    case blockCard(card: CardID, by: CardID)
    /// Remove that dependency.
    case unblockCard(card: CardID, by: CardID)
    /// Make a card come back once it is done (nil: stop).
    case setRecurrence(card: CardID, recurrence: Recurrence?)
    /// The actor watches the card: its comments, moves and unblocking reach their inbox.
    case watchCard(card: CardID)
    /// The actor stops watching the card (they still hear of it while they created it or are assigned).
    case unwatchCard(card: CardID)
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
    /// When the card was made, for a card brought from elsewhere (an import keeps Trello's date): not before the
    /// epoch; a time after the applying server's clock (another machine's clock ahead) is taken as that clock's.
    /// Default: when the op is applied.
    public var createdAt: Timestamp?

    /// Makes an add-card op.
    public init(
        card: CardID, column: ColumnID? = nil, placement: Placement = .bottom, title: String,
        description: String = "", due: Day? = nil, labels: [LabelID] = [], assignees: [UserID] = [],
        milestone: MilestoneID? = nil, ref: String? = nil, createdAt: Timestamp? = nil
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
        self.createdAt = createdAt
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
    /// The title the title edit was based on: if the card's title is another one now (someone renamed it meanwhile,
    /// say while this edit waited offline), the edit is a `conflict` rather than a rename of their title unseen.
    public var baseTitle: String?
    /// A new due date, or clear it.
    public var due: Clearable<Day>?
    /// A new milestone, or leave the milestone.
    public var milestone: Clearable<MilestoneID>?
    /// A new external reference, or clear it.
    public var ref: Clearable<String>?

    /// Makes an edit-card op.
    public init(
        card: CardID, title: String? = nil, description: String? = nil, baseSeq: UInt64? = nil,
        due: Clearable<Day>? = nil, milestone: Clearable<MilestoneID>? = nil, ref: Clearable<String>? = nil,
        baseTitle: String? = nil
    ) {
        self.card = card
        self.title = title
        self.description = description
        self.baseSeq = baseSeq
        self.baseTitle = baseTitle
        self.due = due
        self.milestone = milestone
        self.ref = ref
    }

    /// Whether the edit sets no field at all.
    public var isEmpty: Bool { title == nil && description == nil && due == nil && milestone == nil && ref == nil }
}

extension Op {
    /// An op's kind: its wire name (`card.move`), also the `kind` of its activity record. A closed set, so a switch
    /// over it is exhaustive and a new op kind is a compile error wherever it must be handled.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// `board.rename`
        case boardRename = "board.rename"
        /// `board.remind`
        case boardRemind = "board.remind"
        /// `member.set`
        case memberSet = "member.set"
        /// `member.remove`
        case memberRemove = "member.remove"
        /// `column.add`
        case columnAdd = "column.add"
        /// `column.rename`
        case columnRename = "column.rename"
        /// `column.move`
        case columnMove = "column.move"
        /// `column.remove`
        case columnRemove = "column.remove"
        /// `column.wip`
        case columnWIP = "column.wip"
        /// `column.in_progress`
        case columnInProgress = "column.in_progress"
        /// `card.add`
        case cardAdd = "card.add"
        /// `card.edit`
        case cardEdit = "card.edit"
        /// `card.move`
        case cardMove = "card.move"
        /// `card.label`
        case cardLabel = "card.label"
        /// `card.unlabel`
        case cardUnlabel = "card.unlabel"
        /// `card.assign`
        case cardAssign = "card.assign"
        /// `card.unassign`
        case cardUnassign = "card.unassign"
        /// `card.block`
        case cardBlock = "card.block"
        /// `card.unblock`
        case cardUnblock = "card.unblock"
        /// `card.recur`
        case cardRecur = "card.recur"
        /// `card.watch`
        case cardWatch = "card.watch"
        /// `card.unwatch`
        case cardUnwatch = "card.unwatch"
        /// `card.close`
        case cardClose = "card.close"
        /// `card.reopen`
        case cardReopen = "card.reopen"
        /// `card.archive`
        case cardArchive = "card.archive"
        /// `card.restore`
        case cardRestore = "card.restore"
        /// `card.purge`
        case cardPurge = "card.purge"
        /// `checklist.add`
        case checklistAdd = "checklist.add"
        /// `checklist.edit`
        case checklistEdit = "checklist.edit"
        /// `checklist.remove`
        case checklistRemove = "checklist.remove"
        /// `comment.add`
        case commentAdd = "comment.add"
        /// `comment.edit`
        case commentEdit = "comment.edit"
        /// `comment.delete`
        case commentDelete = "comment.delete"
        /// `label.create`
        case labelCreate = "label.create"
        /// `label.update`
        case labelUpdate = "label.update"
        /// `label.delete`
        case labelDelete = "label.delete"
        /// `milestone.create`
        case milestoneCreate = "milestone.create"
        /// `milestone.update`
        case milestoneUpdate = "milestone.update"
        /// `milestone.close`
        case milestoneClose = "milestone.close"
        /// `milestone.reopen`
        case milestoneReopen = "milestone.reopen"
        /// `milestone.delete`
        case milestoneDelete = "milestone.delete"
        /// `chat`
        case chat = "chat"
    }

    /// The op's kind.
    public var opKind: Kind {
        switch self {
        case .renameBoard: .boardRename
        case .setRemindHours: .boardRemind
        case .setMember: .memberSet
        case .removeMember: .memberRemove
        case .addColumn: .columnAdd
        case .renameColumn: .columnRename
        case .moveColumn: .columnMove
        case .removeColumn: .columnRemove
        case .setWIPLimit: .columnWIP
        case .setInProgress: .columnInProgress
        case .addCard: .cardAdd
        case .editCard: .cardEdit
        case .moveCard: .cardMove
        case .addLabel: .cardLabel
        case .removeLabel: .cardUnlabel
        case .assign: .cardAssign
        case .unassign: .cardUnassign
        case .blockCard: .cardBlock
        case .unblockCard: .cardUnblock
        case .setRecurrence: .cardRecur
        case .watchCard: .cardWatch
        case .unwatchCard: .cardUnwatch
        case .closeCard: .cardClose
        case .reopenCard: .cardReopen
        case .archiveCard: .cardArchive
        case .restoreCard: .cardRestore
        case .purgeCard: .cardPurge
        case .addChecklistItem: .checklistAdd
        case .editChecklistItem: .checklistEdit
        case .removeChecklistItem: .checklistRemove
        case .addComment: .commentAdd
        case .editComment: .commentEdit
        case .deleteComment: .commentDelete
        case .createLabel: .labelCreate
        case .updateLabel: .labelUpdate
        case .deleteLabel: .labelDelete
        case .createMilestone: .milestoneCreate
        case .updateMilestone: .milestoneUpdate
        case .closeMilestone: .milestoneClose
        case .reopenMilestone: .milestoneReopen
        case .deleteMilestone: .milestoneDelete
        case .chat: .chat
        }
    }

    /// The op's wire name, e.g. `card.move`; also the `kind` of its activity record.
    public var kind: String { opKind.rawValue }

    /// Every op kind's wire name.
    public static let allKinds: [String] = Kind.allCases.map(\.rawValue)

    /// The card the op is about, if any.
    public var card: CardID? {
        switch self {
        case .addCard(let a): a.card
        case .editCard(let e): e.card
        case .moveCard(let c, _, _, _), .addLabel(let c, _), .removeLabel(let c, _), .assign(let c, _),
            .unassign(let c, _), .blockCard(let c, _), .unblockCard(let c, _), .setRecurrence(let c, _), .watchCard(let c), .unwatchCard(let c),
            .closeCard(let c), .reopenCard(let c), .archiveCard(let c), .restoreCard(let c),
            .purgeCard(let c), .addChecklistItem(let c, _, _, _, _), .editChecklistItem(let c, _, _, _),
            .removeChecklistItem(let c, _), .addComment(let c, _, _), .editComment(let c, _, _),
            .deleteComment(let c, _):
            c
        case .renameBoard, .setRemindHours, .setMember, .removeMember, .addColumn, .renameColumn, .moveColumn,
            .removeColumn, .setWIPLimit, .setInProgress, .createLabel, .updateLabel, .deleteLabel, .createMilestone, .updateMilestone,
            .closeMilestone, .reopenMilestone, .deleteMilestone, .chat:
            nil
        }
    }
}
