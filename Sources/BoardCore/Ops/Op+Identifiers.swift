extension Op {
    /// Every identifier the op names, with its wire field name, in field order: what the reducer checks before
    /// anything else, so a malformed id is `invalid` in every op kind, whether it names a new object or an
    /// existing one (Protocol.md, "JSON rules").
    public var identifierFields: [(field: String, value: String)] {
        func placement(_ p: Placement) -> [(field: String, value: String)] {
            (p.after.map { [("after", $0.rawValue)] } ?? []) + (p.before.map { [("before", $0.rawValue)] } ?? [])
        }
        switch self {
        case .renameBoard, .setRemindHours, .chat:
            return []
        case .setMember(let user, _, _), .removeMember(let user):
            return [("user", user.rawValue)]
        case .addColumn(let column, _, _), .renameColumn(let column, _), .moveColumn(let column, _),
            .removeColumn(let column), .setWIPLimit(let column, _), .setInProgress(let column, _):
            return [("column", column.rawValue)]
        case .addCard(let add):
            var fields: [(field: String, value: String)] = [("card", add.card.rawValue)]
            if let column = add.column { fields.append(("column", column.rawValue)) }
            fields += placement(add.placement)
            fields += add.labels.map { ("labels", $0.rawValue) } + add.assignees.map { ("assignees", $0.rawValue) }
            if let milestone = add.milestone { fields.append(("milestone", milestone.rawValue)) }
            return fields
        case .editCard(let edit):
            if case .set(let milestone)? = edit.milestone {
                return [("card", edit.card.rawValue), ("milestone", milestone.rawValue)]
            }
            return [("card", edit.card.rawValue)]
        case .moveCard(let card, let column, let p, _):
            return [("card", card.rawValue), ("to_column", column.rawValue)] + placement(p)
        case .addLabel(let card, let label), .removeLabel(let card, let label):
            return [("card", card.rawValue), ("label", label.rawValue)]
        case .assign(let card, let user), .unassign(let card, let user):
            return [("card", card.rawValue), ("user", user.rawValue)]
        case .blockCard(let card, let by), .unblockCard(let card, let by):
            return [("card", card.rawValue), ("by", by.rawValue)]
        case .closeCard(let card), .reopenCard(let card), .archiveCard(let card), .restoreCard(let card),
            .purgeCard(let card), .setRecurrence(let card, _), .watchCard(let card), .unwatchCard(let card):
            return [("card", card.rawValue)]
        case .addChecklistItem(let card, let item, _, _, _), .editChecklistItem(let card, let item, _, _),
            .removeChecklistItem(let card, let item):
            return [("card", card.rawValue), ("item", item.rawValue)]
        case .addComment(let card, let comment, _), .editComment(let card, let comment, _),
            .deleteComment(let card, let comment):
            return [("card", card.rawValue), ("comment", comment.rawValue)]
        case .createLabel(let label, _, _), .updateLabel(let label, _, _), .deleteLabel(let label):
            return [("label", label.rawValue)]
        case .createMilestone(let milestone, _, _, _), .updateMilestone(let milestone, _, _, _),
            .closeMilestone(let milestone), .reopenMilestone(let milestone), .deleteMilestone(let milestone):
            return [("milestone", milestone.rawValue)]
        }
    }
}
