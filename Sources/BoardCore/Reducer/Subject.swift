/// The one thing an op changes; its fields before and after the op make the activity's `changes`.
enum Subject: Hashable, Sendable {
    case board
    case member(UserID)
    case column(ColumnID)
    case card(CardID)
    case checklistItem(CardID, ChecklistItemID)
    case comment(CardID, CommentID)
    case label(LabelID)
    case milestone(MilestoneID)
    case chat

    /// The subject of `op`.
    init(of op: Op) {
        switch op {
        case .renameBoard, .setRemindHours: self = .board
        case .setMember(let user, _, _), .removeMember(let user): self = .member(user)
        case .addColumn(let column, _, _), .renameColumn(let column, _), .moveColumn(let column, _),
            .removeColumn(let column), .setWIPLimit(let column, _), .setInProgress(let column, _):
            self = .column(column)
        case .addChecklistItem(let card, let item, _, _, _), .editChecklistItem(let card, let item, _, _),
            .removeChecklistItem(let card, let item):
            self = .checklistItem(card, item)
        case .addComment(let card, let comment, _), .editComment(let card, let comment, _),
            .deleteComment(let card, let comment):
            self = .comment(card, comment)
        case .createLabel(let label, _, _), .updateLabel(let label, _, _), .deleteLabel(let label):
            self = .label(label)
        case .createMilestone(let m, _, _, _), .updateMilestone(let m, _, _, _), .closeMilestone(let m),
            .reopenMilestone(let m), .deleteMilestone(let m):
            self = .milestone(m)
        case .chat: self = .chat
        case .addCard(let add): self = .card(add.card)
        case .editCard(let edit): self = .card(edit.card)
        case .moveCard(let card, _, _, _), .addLabel(let card, _), .removeLabel(let card, _), .assign(let card, _),
            .unassign(let card, _), .blockCard(let card, _), .unblockCard(let card, _), .setRecurrence(let card, _), .watchCard(let card),
            .unwatchCard(let card), .closeCard(let card), .reopenCard(let card), .archiveCard(let card),
            .restoreCard(let card), .purgeCard(let card):
            self = .card(card)
        }
    }

    /// The subject an activity record is about.
    init(of activity: Activity) {
        if let card = activity.card {
            if let item = activity.item {
                self = .checklistItem(card, item)
            } else if let comment = activity.comment {
                self = .comment(card, comment)
            } else {
                self = .card(card)
            }
        } else if let column = activity.column {
            self = .column(column)
        } else if let label = activity.label {
            self = .label(label)
        } else if let milestone = activity.milestone {
            self = .milestone(milestone)
        } else if let member = activity.member {
            self = .member(member)
        } else if activity.kind == "chat" {
            self = .chat
        } else {
            self = .board
        }
    }

    /// The card whose `updated_by`/`updated_at` a change of this subject touches.
    var card: CardID? {
        switch self {
        case .card(let c), .checklistItem(let c, _), .comment(let c, _): c
        default: nil
        }
    }

    /// Fills the subject's reference fields of an activity record.
    func describe(in activity: inout Activity) {
        switch self {
        case .board, .chat: break
        case .member(let user): activity.member = user
        case .column(let column): activity.column = column
        case .card(let card): activity.card = card
        case .checklistItem(let card, let item):
            activity.card = card
            activity.item = item
        case .comment(let card, let comment):
            activity.card = card
            activity.comment = comment
        case .label(let label): activity.label = label
        case .milestone(let milestone): activity.milestone = milestone
        }
    }
}

extension Board {
    /// The subject's fields as JSON values; an absent subject has no fields (what an undo checks against; `apply`
    /// computes an activity's changes from the typed fields, `state(of:)`).
    func fields(of subject: Subject) -> [String: JSONValue] {
        switch subject {
        case .board:
            return ["name": .string(name), "remind_hours": remindHours.map { .int(Int64($0)) } ?? .null]
        case .chat:
            return [:]
        case .member(let user):
            guard let m = members[user] else { return [:] }
            return ["role": .string(m.role.rawValue), "name": .string(m.name)]
        case .column(let id):
            guard let index = columnIndex(id) else { return [:] }
            let column = columns[index]
            return [
                "name": .string(column.name), "index": .int(Int64(index)),
                "wip_limit": column.wip.map { .int(Int64($0.limit)) } ?? .null,
                "wip_hard": column.wip.map { .bool($0.hard) } ?? .null,
                "in_progress": column.inProgress.map(JSONValue.bool) ?? .null,
            ]
        case .card(let id):
            guard let card = cards[id] else { return [:] }
            return [
                "number": .int(Int64(card.number)), "column": .string(card.column.rawValue),
                "rank": .string(card.rank.rawValue), "title": .string(card.title),
                "description": .string(card.description), "due": .optional(card.due?.description),
                "labels": .strings(card.labels.map(\.rawValue)), "assignees": .strings(card.assignees.map(\.rawValue)),
                "milestone": .optional(card.milestone?.rawValue), "closed": .bool(card.closed),
                "archived": .bool(card.archived), "ref": .optional(card.ref),
                "blocked_by": card.blockers.map { .strings($0.map(\.rawValue)) } ?? .null,
                "recur": card.recur?.json ?? .null,
                "watchers": card.watchers.isEmpty ? .null : .strings(card.watchers.map(\.rawValue)),
            ]
        case .checklistItem(let cardID, let itemID):
            guard let item = cards[cardID]?.checklist.first(where: { $0.id == itemID }) else { return [:] }
            return ["text": .string(item.text), "done": .bool(item.done)]
        case .comment(let cardID, let commentID):
            guard let comment = cards[cardID]?.comments.first(where: { $0.id == commentID }) else { return [:] }
            return ["text": .string(comment.text)]
        case .label(let id):
            guard let label = label(id) else { return [:] }
            return ["name": .string(label.name), "color": .string(label.color.description)]
        case .milestone(let id):
            guard let m = milestone(id) else { return [:] }
            return [
                "title": .string(m.title), "description": .string(m.description),
                "due": .optional(m.due?.description), "closed": .bool(m.closed),
            ]
        }
    }
}
