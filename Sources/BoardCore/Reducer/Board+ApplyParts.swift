extension Board {
    // MARK: Checklists

    mutating func addChecklistItem(
        _ item: ChecklistItemID, to id: CardID, text: String, done: Bool, index: Int?
    ) -> Result<Outcome, Rejection> {
        if let r = Validate.id(item, "item id") { return .failure(r) }
        if let r = Validate.line(text, "checklist item", max: Limits.checklistTextMaxCharacters) { return .failure(r) }
        if let index, index < 0 { return .failure(Rejection(.invalid, "index must not be negative")) }
        return modifyCard(id) { card in
            if card.checklist.contains(where: { $0.id == item }) {
                return .failure(Rejection(.duplicateID, "checklist item \(item) already exists"))
            }
            if card.checklist.count >= Limits.checklistItemsMax {
                return .failure(Rejection(.tooLarge, "a checklist holds at most \(Limits.checklistItemsMax) items"))
            }
            let at = min(index ?? card.checklist.count, card.checklist.count)
            card.checklist.insert(ChecklistItem(id: item, text: text, done: done), at: at)
            return .success(Outcome(inverse: .removeChecklistItem(card: id, item: item)))
        }
    }

    mutating func editChecklistItem(
        _ item: ChecklistItemID, of id: CardID, text: String?, done: Bool?
    ) -> Result<Outcome, Rejection> {
        if let text, let r = Validate.line(text, "checklist item", max: Limits.checklistTextMaxCharacters) {
            return .failure(r)
        }
        return modifyCard(id) { card in
            guard let i = card.checklist.firstIndex(where: { $0.id == item }) else {
                return .failure(Rejection(.notFound, "no checklist item \(item) on card #\(card.number)"))
            }
            let old = card.checklist[i]
            if let text { card.checklist[i].text = text }
            if let done { card.checklist[i].done = done }
            let inverse = Op.editChecklistItem(
                card: id, item: item, text: text == nil ? nil : old.text, done: done == nil ? nil : old.done)
            return .success(Outcome(inverse: inverse))
        }
    }

    mutating func removeChecklistItem(_ item: ChecklistItemID, from id: CardID) -> Result<Outcome, Rejection> {
        modifyCard(id) { card in
            guard let i = card.checklist.firstIndex(where: { $0.id == item }) else {
                return .failure(Rejection(.notFound, "no checklist item \(item) on card #\(card.number)"))
            }
            let old = card.checklist.remove(at: i)
            return .success(
                Outcome(inverse: .addChecklistItem(card: id, item: item, text: old.text, done: old.done, index: i)))
        }
    }

    // MARK: Comments

    mutating func addComment(
        _ comment: CommentID, to id: CardID, text: String, context: ApplyContext
    ) -> Result<Outcome, Rejection> {
        if let r = Validate.id(comment, "comment id") { return .failure(r) }
        if let r = Validate.text(text, "comment", maxBytes: Limits.commentMaxBytes, allowEmpty: false) {
            return .failure(r)
        }
        return modifyCard(id) { card in
            if card.comments.contains(where: { $0.id == comment }) {
                return .failure(Rejection(.duplicateID, "comment \(comment) already exists"))
            }
            if card.comments.count >= Limits.commentsPerCardMax {
                return .failure(Rejection(.tooLarge, "a card holds at most \(Limits.commentsPerCardMax) comments"))
            }
            card.comments.append(Comment(id: comment, author: context.actor, at: context.now, text: text))
            return .success(Outcome(inverse: .deleteComment(card: id, comment: comment), text: text))
        }
    }

    mutating func editComment(
        _ comment: CommentID, of id: CardID, text: String, context: ApplyContext
    ) -> Result<Outcome, Rejection> {
        if let r = Validate.text(text, "comment", maxBytes: Limits.commentMaxBytes, allowEmpty: false) {
            return .failure(r)
        }
        return modifyCard(id) { card in
            guard let i = card.comments.firstIndex(where: { $0.id == comment }) else {
                return .failure(Rejection(.notFound, "no comment \(comment) on card #\(card.number)"))
            }
            guard card.comments[i].author == context.actor else {
                return .failure(Rejection(.forbidden, "only its author can edit a comment"))
            }
            let old = card.comments[i].text
            if old == text { return .success(Outcome()) }
            card.comments[i].text = text
            card.comments[i].editedAt = context.now
            return .success(Outcome(inverse: .editComment(card: id, comment: comment, text: old), text: text))
        }
    }

    mutating func deleteComment(
        _ comment: CommentID, from id: CardID, context: ApplyContext
    ) -> Result<Outcome, Rejection> {
        modifyCard(id) { card in
            guard let i = card.comments.firstIndex(where: { $0.id == comment }) else {
                return .failure(Rejection(.notFound, "no comment \(comment) on card #\(card.number)"))
            }
            guard card.comments[i].author == context.actor || context.role == .owner else {
                return .failure(Rejection(.forbidden, "only its author or an owner can delete a comment"))
            }
            card.comments.remove(at: i)
            return .success(Outcome())
        }
    }

    // MARK: Labels

    mutating func createLabel(_ id: LabelID, name: String, color: HexColor) -> Result<Outcome, Rejection> {
        if let r = Validate.id(id, "label id") { return .failure(r) }
        if let r = Validate.line(name, "label name", max: Limits.labelNameMaxCharacters) { return .failure(r) }
        if label(id) != nil { return .failure(Rejection(.duplicateID, "label id \(id) is already used")) }
        if labels.contains(where: { $0.name.lowercased() == name.lowercased() }) {
            return .failure(Rejection(.invalid, "a label named \(name) already exists"))
        }
        if labels.count >= Limits.labelsMax {
            return .failure(Rejection(.tooLarge, "a board has at most \(Limits.labelsMax) labels"))
        }
        labels.append(Label(id: id, name: name, color: color))
        return .success(Outcome(inverse: .deleteLabel(label: id)))
    }

    mutating func updateLabel(_ id: LabelID, name: String?, color: HexColor?) -> Result<Outcome, Rejection> {
        guard let i = labels.firstIndex(where: { $0.id == id }) else {
            return .failure(Rejection(.notFound, "no label \(id) on this board"))
        }
        if let name {
            if let r = Validate.line(name, "label name", max: Limits.labelNameMaxCharacters) { return .failure(r) }
            if labels.contains(where: { $0.id != id && $0.name.lowercased() == name.lowercased() }) {
                return .failure(Rejection(.invalid, "a label named \(name) already exists"))
            }
        }
        let old = labels[i]
        if let name { labels[i].name = name }
        if let color { labels[i].color = color }
        return .success(
            Outcome(inverse: .updateLabel(label: id, name: name == nil ? nil : old.name, color: color == nil ? nil : old.color)))
    }

    mutating func deleteLabel(_ id: LabelID) -> Result<Outcome, Rejection> {
        guard let i = labels.firstIndex(where: { $0.id == id }) else {
            return .failure(Rejection(.notFound, "no label \(id) on this board"))
        }
        labels.remove(at: i)
        for card in cards.values where card.labels.contains(id) {
            cardTable[card.id]!.labels.removeAll { $0 == id }
        }
        return .success(Outcome())
    }

    // MARK: Milestones

    mutating func createMilestone(
        _ id: MilestoneID, title: String, description: String?, due: Day?
    ) -> Result<Outcome, Rejection> {
        if let r = Validate.id(id, "milestone id") { return .failure(r) }
        if let r = Validate.line(title, "milestone title", max: Limits.milestoneTitleMaxCharacters) { return .failure(r) }
        if let description,
            let r = Validate.text(description, "description", maxBytes: Limits.descriptionMaxBytes, allowEmpty: true)
        {
            return .failure(r)
        }
        if milestone(id) != nil { return .failure(Rejection(.duplicateID, "milestone id \(id) is already used")) }
        if milestones.count >= Limits.milestonesMax {
            return .failure(Rejection(.tooLarge, "a board has at most \(Limits.milestonesMax) milestones"))
        }
        milestones.append(Milestone(id: id, title: title, description: description ?? "", due: due))
        return .success(Outcome(inverse: .deleteMilestone(milestone: id)))
    }

    mutating func updateMilestone(
        _ id: MilestoneID, title: String?, description: String?, due: Clearable<Day>?
    ) -> Result<Outcome, Rejection> {
        guard let i = milestones.firstIndex(where: { $0.id == id }) else {
            return .failure(Rejection(.notFound, "no milestone \(id) on this board"))
        }
        if let title, let r = Validate.line(title, "milestone title", max: Limits.milestoneTitleMaxCharacters) {
            return .failure(r)
        }
        if let description,
            let r = Validate.text(description, "description", maxBytes: Limits.descriptionMaxBytes, allowEmpty: true)
        {
            return .failure(r)
        }
        let old = milestones[i]
        if let title { milestones[i].title = title }
        if let description { milestones[i].description = description }
        if let due { milestones[i].due = due.value }
        let inverse = Op.updateMilestone(
            milestone: id, title: title == nil ? nil : old.title, description: description == nil ? nil : old.description,
            due: due == nil ? nil : Clearable(old.due))
        return .success(Outcome(inverse: inverse))
    }

    mutating func setMilestoneClosed(_ id: MilestoneID, _ closed: Bool) -> Result<Outcome, Rejection> {
        guard let i = milestones.firstIndex(where: { $0.id == id }) else {
            return .failure(Rejection(.notFound, "no milestone \(id) on this board"))
        }
        milestones[i].closed = closed
        return .success(Outcome(inverse: closed ? .reopenMilestone(milestone: id) : .closeMilestone(milestone: id)))
    }

    mutating func deleteMilestone(_ id: MilestoneID) -> Result<Outcome, Rejection> {
        guard let i = milestones.firstIndex(where: { $0.id == id }) else {
            return .failure(Rejection(.notFound, "no milestone \(id) on this board"))
        }
        milestones.remove(at: i)
        for card in cards.values where card.milestone == id { cardTable[card.id]!.milestone = nil }
        return .success(Outcome())
    }
}
