extension Board {
    mutating func addCard(_ add: AddCard, context: ApplyContext) -> Result<Outcome, Rejection> {
        if let r = Validate.id(add.card, "card id") { return .failure(r) }
        if cards[add.card] != nil || purged.contains(add.card) {
            return .failure(Rejection(.duplicateID, "card id \(add.card) is already used"))
        }
        if cards.count >= Limits.cardsMax {
            return .failure(Rejection(.tooLarge, "the board holds \(Limits.cardsMax) cards; purge some first"))
        }
        guard let columnID = add.column ?? columns.first?.id else {
            return .failure(Rejection(.notFound, "the board has no column"))
        }
        if case .failure(let r) = existingColumn(columnID) { return .failure(r) }
        if let r = Validate.line(add.title, "title", max: Limits.titleMaxCharacters) { return .failure(r) }
        if let r = Validate.text(add.description, "description", maxBytes: Limits.descriptionMaxBytes, allowEmpty: true) {
            return .failure(r)
        }
        if let ref = add.ref {
            if let r = Validate.ref(ref) { return .failure(r) }
            if let other = card(ref: ref) { return .failure(duplicateRef(ref, other)) }
        }
        if let created = add.createdAt, created.milliseconds < 0 {
            return .failure(Rejection(.invalid, "created_at \(created.milliseconds) is before the epoch"))
        }
        let labels = Array(Set(add.labels)).sorted()
        if labels.count > Limits.labelsPerCardMax {
            return .failure(Rejection(.tooLarge, "a card carries at most \(Limits.labelsPerCardMax) labels"))
        }
        if let missing = labels.first(where: { label($0) == nil }) {
            return .failure(Rejection(.notFound, "no label \(missing) on this board"))
        }
        let assignees = Array(Set(add.assignees)).sorted()
        if assignees.count > Limits.assigneesPerCardMax {
            return .failure(Rejection(.tooLarge, "a card has at most \(Limits.assigneesPerCardMax) assignees"))
        }
        if let missing = assignees.first(where: { members[$0] == nil }) {
            return .failure(Rejection(.notFound, "\(missing) is not a member of this board"))
        }
        if let m = add.milestone, milestone(m) == nil {
            return .failure(Rejection(.notFound, "no milestone \(m) on this board"))
        }
        let warning: String?
        switch wipCheck(adding: columnID) {
        case .success(let w): warning = w
        case .failure(let r): return .failure(r)
        }
        let placement: ResolvedPlacement
        prepareSlots()
        switch resolve(add.placement, in: columnID, for: add.card) {
        case .success(let p): placement = p
        case .failure(let r): return .failure(r)
        }
        applyRekey(placement.rekeyed)
        insertCard(
            Card(
                id: add.card, number: nextCardNumber, column: columnID, rank: placement.rank, title: add.title,
                description: add.description, descriptionSeq: context.seq, due: add.due, labels: labels,
                assignees: assignees, milestone: add.milestone, ref: add.ref, createdBy: context.actor,
                createdAt: min(add.createdAt ?? context.now, context.now), updatedAt: context.now))
        nextCardNumber += 1
        return .success(Outcome(inverse: .archiveCard(card: add.card), warning: warning))
    }

    mutating func editCard(_ edit: EditCard, context: ApplyContext) -> Result<Outcome, Rejection> {
        let card: Card
        switch existingCard(edit.card) {
        case .success(let c): card = c
        case .failure(let r): return .failure(r)
        }
        if let title = edit.title, let r = Validate.line(title, "title", max: Limits.titleMaxCharacters) {
            return .failure(r)
        }
        if let title = edit.title, let base = edit.baseTitle, card.title != base, card.title != title {
            return .failure(
                Rejection(
                    .conflict, "#\(card.number) was renamed to \"\(card.title)\" since this edit began",
                    current: .object(["title": .string(card.title)])))
        }
        if let description = edit.description {
            if let r = Validate.text(description, "description", maxBytes: Limits.descriptionMaxBytes, allowEmpty: true) {
                return .failure(r)
            }
            if let base = edit.baseSeq, base < card.descriptionSeq, description != card.description {
                return .failure(
                    Rejection(
                        .conflict, "the description of #\(card.number) was changed by another edit since this one began",
                        current: .object([
                            "description": .string(card.description), "seq": .int(Int64(card.descriptionSeq)),
                        ])))
            }
        }
        if case .set(let ref)? = edit.ref, ref != card.ref {
            if let r = Validate.ref(ref) { return .failure(r) }
            if let other = self.card(ref: ref), other.id != card.id { return .failure(duplicateRef(ref, other)) }
        }
        if case .set(let m)? = edit.milestone, milestone(m) == nil {
            return .failure(Rejection(.notFound, "no milestone \(m) on this board"))
        }
        var inverse = EditCard(card: card.id)
        var updated = card
        if let title = edit.title, title != card.title {
            updated.title = title
            inverse.title = card.title
        }
        if let description = edit.description, description != card.description {
            updated.description = description
            updated.descriptionSeq = context.seq
            inverse.description = card.description
        }
        if let due = edit.due, due.value != card.due {
            updated.due = due.value
            inverse.due = Clearable(card.due)
        }
        if let milestone = edit.milestone, milestone.value != card.milestone {
            updated.milestone = milestone.value
            inverse.milestone = Clearable(card.milestone)
        }
        if let ref = edit.ref, ref.value != card.ref {
            updated.ref = ref.value
            inverse.ref = Clearable(card.ref)
        }
        cardTable[card.id] = updated  // no placement field changes
        return .success(Outcome(inverse: inverse.isEmpty ? nil : .editCard(inverse)))
    }

    mutating func moveCard(
        _ id: CardID, to column: ColumnID, _ placement: Placement, force: String?, role: Role
    ) -> Result<Outcome, Rejection> {
        let card: Card
        switch existingCard(id) {
        case .success(let c): card = c
        case .failure(let r): return .failure(r)
        }
        if case .failure(let r) = existingColumn(column) { return .failure(r) }
        if card.archived { return .failure(Rejection(.invalid, "card #\(card.number) is archived; restore it first")) }
        let forced: String?
        switch dependencyCheck(card, into: column, force: force, role: role) {
        case .success(let reason): forced = reason
        case .failure(let r): return .failure(r)
        }
        var warning: String?
        if column != card.column {
            switch wipCheck(adding: column) {
            case .success(let w): warning = w
            case .failure(let r): return .failure(r)
            }
        }
        let resolved: ResolvedPlacement
        prepareSlots()
        switch resolve(placement, in: column, for: id) {
        case .success(let p): resolved = p
        case .failure(let r): return .failure(r)
        }
        // The inverse puts the card back by its old rank, unless this move re-keyed the card's own column: then
        // old ranks mean nothing and the old neighbours say where it was.
        var back = Placement(rank: card.rank)
        if !resolved.rekeyed.isEmpty && column == card.column {
            let others = cards.values.filter { $0.column == column && $0.id != id }.sorted(by: Card.positionOrder)
            let slot = others.firstIndex { Card.positionOrder(card, $0) } ?? others.count
            back = Placement(after: slot > 0 ? others[slot - 1].id : nil, before: slot < others.count ? others[slot].id : nil)
            if back.after == nil && back.before == nil { back = .bottom }
        }
        applyRekey(resolved.rekeyed)
        placeCard(id, in: column, rank: resolved.rank)
        if column == card.column && resolved.rank == card.rank && resolved.rekeyed.isEmpty { warning = nil }
        return .success(
            Outcome(
                inverse: .moveCard(card: id, column: card.column, placement: back), warning: warning, text: forced,
                reordered: !resolved.rekeyed.isEmpty))
    }

    mutating func addLabel(_ label: LabelID, to id: CardID) -> Result<Outcome, Rejection> {
        if case .failure(let r) = existingCard(id) { return .failure(r) }
        guard self.label(label) != nil else { return .failure(Rejection(.notFound, "no label \(label) on this board")) }
        return modifyCard(id) { card in
            if card.labels.contains(label) { return .success(Outcome()) }
            if card.labels.count >= Limits.labelsPerCardMax {
                return .failure(Rejection(.tooLarge, "a card carries at most \(Limits.labelsPerCardMax) labels"))
            }
            card.labels.append(label)
            card.labels.sort()
            return .success(Outcome(inverse: .removeLabel(card: id, label: label)))
        }
    }

    mutating func removeLabel(_ label: LabelID, from id: CardID) -> Result<Outcome, Rejection> {
        if case .failure(let r) = existingCard(id) { return .failure(r) }
        guard self.label(label) != nil else { return .failure(Rejection(.notFound, "no label \(label) on this board")) }
        return modifyCard(id) { card in
            guard let i = card.labels.firstIndex(of: label) else { return .success(Outcome()) }
            card.labels.remove(at: i)
            return .success(Outcome(inverse: .addLabel(card: id, label: label)))
        }
    }

    mutating func assign(_ user: UserID, to id: CardID) -> Result<Outcome, Rejection> {
        if case .failure(let r) = existingCard(id) { return .failure(r) }
        guard members[user] != nil else { return .failure(Rejection(.notFound, "\(user) is not a member of this board")) }
        return modifyCard(id) { card in
            if card.assignees.contains(user) { return .success(Outcome()) }
            if card.assignees.count >= Limits.assigneesPerCardMax {
                return .failure(Rejection(.tooLarge, "a card has at most \(Limits.assigneesPerCardMax) assignees"))
            }
            card.assignees.append(user)
            card.assignees.sort()
            return .success(Outcome(inverse: .unassign(card: id, user: user)))
        }
    }

    mutating func unassign(_ user: UserID, from id: CardID) -> Result<Outcome, Rejection> {
        modifyCard(id) { card in
            guard let i = card.assignees.firstIndex(of: user) else { return .success(Outcome()) }
            card.assignees.remove(at: i)
            return .success(Outcome(inverse: .assign(card: id, user: user)))
        }
    }

    mutating func setClosed(_ id: CardID, _ closed: Bool) -> Result<Outcome, Rejection> {
        modifyCard(id) { card in
            card.closed = closed
            return .success(Outcome(inverse: closed ? .reopenCard(card: id) : .closeCard(card: id)))
        }
    }

    mutating func setArchived(_ id: CardID, _ archived: Bool) -> Result<Outcome, Rejection> {
        let card: Card
        switch existingCard(id) {
        case .success(let c): card = c
        case .failure(let r): return .failure(r)
        }
        var warning: String?
        if card.archived && !archived {
            switch wipCheck(adding: card.column) {
            case .success(let w): warning = w
            case .failure(let r): return .failure(r)
            }
        }
        setArchivedFlag(id, archived)
        return .success(Outcome(inverse: archived ? .restoreCard(card: id) : .archiveCard(card: id), warning: warning))
    }

    mutating func purgeCard(_ id: CardID) -> Result<Outcome, Rejection> {
        if case .failure(let r) = existingCard(id) { return .failure(r) }
        removeCard(id)
        purged.insert(id)
        return .success(Outcome())
    }

    /// Runs `body` on a copy of the card and stores it back only when `body` succeeds. `body` changes no placement
    /// field (column, rank, archived), so the placement index stays current.
    mutating func modifyCard(
        _ id: CardID, _ body: (inout Card) -> Result<Outcome, Rejection>
    ) -> Result<Outcome, Rejection> {
        guard var card = cardTable[id] else { return existingCard(id).map { _ in Outcome() } }
        let result = body(&card)
        assert(card.column == cardTable[id]!.column && card.rank == cardTable[id]!.rank
            && card.archived == cardTable[id]!.archived, "modifyCard must not move a card")
        if case .success = result { cardTable[id] = card }
        return result
    }

    /// New ranks for a re-keyed column; the placement index is rebuilt when next needed (re-keys are rare).
    mutating func applyRekey(_ ranks: [CardID: Rank]) {
        guard !ranks.isEmpty else { return }
        for (id, rank) in ranks { cardTable[id]?.rank = rank }
        slots = nil
    }

    func duplicateRef(_ ref: String, _ other: Card) -> Rejection {
        Rejection(
            .duplicateRef, "card #\(other.number) already has ref \(ref)",
            current: .object(["card": .string(other.id.rawValue), "number": .int(Int64(other.number))]))
    }
}
