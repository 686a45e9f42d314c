/// Applies `op` to `board`: the pure reducer. The same inputs give the same result on the server and in clients.
public func apply(_ op: Op, to board: Board, context: ApplyContext) -> Result<Change, Rejection> {
    board.applying(op, context: context)
}

/// What a handler reports besides its mutation.
struct Outcome {
    var inverse: Op?
    var warning: String?
    var text: String?
    /// Set when other cards were re-ranked (a column re-key): the board changed even if the subject's fields did not.
    var reordered = false
}

extension Board {
    /// Returns the board with `op` applied, or why it was refused; `self` is left as it is.
    public func applying(_ op: Op, context: ApplyContext) -> Result<Change, Rejection> {
        var board = self
        return board.apply(op, context: context).map { result in
            Change(board: board, activity: result.activity, inverse: result.inverse, isNoop: result.isNoop)
        }
    }

    /// Applies `op` in place (no copy of the board), or leaves the board untouched and returns why it was refused.
    ///
    /// This is the server's path: one actor owns the board and mutates it. Every handler validates before it writes,
    /// so a rejection never leaves a half-applied op behind.
    public mutating func apply(
        _ op: Op, context: ApplyContext
    ) -> Result<(activity: Activity, inverse: Op?, isNoop: Bool), Rejection> {
        if let refusal = Board.authorize(op, role: context.role) { return .failure(refusal) }
        // One rule for every op kind: a malformed id is `invalid`, whether it names a new object or an existing one.
        for (field, value) in op.identifierFields where !Identifier<Never>.isWellFormed(value) {
            return .failure(Validate.malformedID(field))
        }
        let subject = Subject(of: op)
        let before = state(of: subject)
        let outcome: Outcome
        switch handle(op, context: context) {
        case .success(let o): outcome = o
        case .failure(let rejection): return .failure(rejection)
        }
        let changes = Board.changes(of: subject, from: before, to: state(of: subject))
        var activity = Activity(
            seq: context.seq, at: context.now, actor: context.actor, kind: op.kind, text: outcome.text,
            changes: changes, warning: outcome.warning)
        subject.describe(in: &activity)
        if changes.isEmpty && subject != .chat && !outcome.reordered {
            return .success((activity, nil, true))
        }
        activity.names = names(for: activity)
        if let card = subject.card, cardTable[card] != nil {
            // Not a placement field: straight to the storage, the placement index stays current.
            cardTable[card]!.updatedBy = context.actor
            cardTable[card]!.updatedAt = context.now
        }
        seq = context.seq
        return .success((activity, outcome.inverse, false))
    }

    /// Whether `role` may make `op` at all (finer checks, such as comment authorship, are in the handlers).
    static func authorize(_ op: Op, role: Role) -> Rejection? {
        switch role {
        case .owner:
            return nil
        case .viewer:
            if case .chat = op { return nil }
            return Rejection(.forbidden, "viewers cannot change the board")
        case .editor, .bot:
            switch op {
            case .renameBoard, .setRemindHours, .setMember, .removeMember:
                return Rejection(.forbidden, "only an owner can rename the board, set its reminders or manage members")
            case .purgeCard:
                return Rejection(.forbidden, "only an owner can purge a card; archive it instead")
            case .addColumn, .renameColumn, .moveColumn, .removeColumn, .setWIPLimit, .setInProgress:
                return role == .bot ? Rejection(.forbidden, "bots cannot manage columns") : nil
            // Every other kind by name, no `default`: a new op kind does not compile until its authorization is
            // decided here.
            case .addCard, .editCard, .moveCard, .addLabel, .removeLabel, .assign, .unassign, .blockCard, .unblockCard,
                .setRecurrence, .watchCard, .unwatchCard,
                .closeCard, .reopenCard,
                .archiveCard, .restoreCard, .addChecklistItem, .editChecklistItem, .removeChecklistItem, .addComment,
                .editComment, .deleteComment, .createLabel, .updateLabel, .deleteLabel, .createMilestone,
                .updateMilestone, .closeMilestone, .reopenMilestone, .deleteMilestone, .chat:
                return nil
            }
        }
    }

    private mutating func handle(_ op: Op, context: ApplyContext) -> Result<Outcome, Rejection> {
        switch op {
        case .renameBoard(let name): renameBoard(name)
        case .setRemindHours(let hours): setRemindHours(hours)
        case .setMember(let user, let role, let name): setMember(user, role: role, name: name, max: context.membersMax)
        case .removeMember(let user): removeMember(user)
        case .addColumn(let column, let name, let index): addColumn(column, name: name, index: index)
        case .renameColumn(let column, let name): renameColumn(column, name: name)
        case .moveColumn(let column, let index): moveColumn(column, to: index)
        case .removeColumn(let column): removeColumn(column)
        case .setWIPLimit(let column, let limit): setWIPLimit(column, limit)
        case .setInProgress(let column, let on): setInProgress(column, on)
        case .addCard(let add): addCard(add, context: context)
        case .editCard(let edit): editCard(edit, context: context)
        case .moveCard(let card, let column, let placement, let force):
            moveCard(card, to: column, placement, force: force, role: context.role)
        case .addLabel(let card, let label): addLabel(label, to: card)
        case .removeLabel(let card, let label): removeLabel(label, from: card)
        case .assign(let card, let user): assign(user, to: card)
        case .unassign(let card, let user): unassign(user, from: card)
        case .blockCard(let card, let by): blockCard(card, by: by)
        case .unblockCard(let card, let by): unblockCard(card, by: by)
        case .setRecurrence(let card, let recurrence): setRecurrence(card, recurrence)
        case .watchCard(let card): setWatching(card, context.actor, true)
        case .unwatchCard(let card): setWatching(card, context.actor, false)
        case .closeCard(let card): setClosed(card, true)
        case .reopenCard(let card): setClosed(card, false)
        case .archiveCard(let card): setArchived(card, true)
        case .restoreCard(let card): setArchived(card, false)
        case .purgeCard(let card): purgeCard(card)
        case .addChecklistItem(let card, let item, let text, let done, let index):
            addChecklistItem(item, to: card, text: text, done: done, index: index)
        case .editChecklistItem(let card, let item, let text, let done):
            editChecklistItem(item, of: card, text: text, done: done)
        case .removeChecklistItem(let card, let item): removeChecklistItem(item, from: card)
        case .addComment(let card, let comment, let text): addComment(comment, to: card, text: text, context: context)
        case .editComment(let card, let comment, let text):
            editComment(comment, of: card, text: text, context: context)
        case .deleteComment(let card, let comment): deleteComment(comment, from: card, context: context)
        case .createLabel(let label, let name, let color): createLabel(label, name: name, color: color)
        case .updateLabel(let label, let name, let color): updateLabel(label, name: name, color: color)
        case .deleteLabel(let label): deleteLabel(label)
        case .createMilestone(let m, let title, let description, let due):
            createMilestone(m, title: title, description: description, due: due)
        case .updateMilestone(let m, let title, let description, let due):
            updateMilestone(m, title: title, description: description, due: due)
        case .closeMilestone(let m): setMilestoneClosed(m, true)
        case .reopenMilestone(let m): setMilestoneClosed(m, false)
        case .deleteMilestone(let m): deleteMilestone(m)
        case .chat(let text):
            Validate.text(text, "chat message", maxBytes: Limits.chatMaxBytes, allowEmpty: false).map { .failure($0) }
                ?? .success(Outcome(text: text))
        }
    }

    /// The card, or `not_found` / `gone`.
    func existingCard(_ id: CardID) -> Result<Card, Rejection> {
        if let card = cards[id] { return .success(card) }
        if purged.contains(id) { return .failure(Rejection(.gone, "card \(id) was purged")) }
        return .failure(Rejection(.notFound, "no card \(id) on this board"))
    }

    /// The column, or `not_found`.
    func existingColumn(_ id: ColumnID) -> Result<Column, Rejection> {
        column(id).map { .success($0) } ?? .failure(Rejection(.notFound, "no column \(id) on this board"))
    }

    /// `wip_limit` when one more card in `column` would pass its hard limit; the soft-limit warning otherwise.
    func wipCheck(adding column: ColumnID) -> Result<String?, Rejection> {
        guard let wip = self.column(column)?.wip, count(in: column) + 1 > wip.limit else { return .success(nil) }
        if wip.hard {
            let name = self.column(column)?.name ?? column.rawValue
            // A limit set (or made hard) below what the column held leaves it over the limit, not at it.
            let held = count(in: column)
            let state = held > wip.limit ? "holds \(held) cards, over its WIP limit of" : "is at its WIP limit of"
            return .failure(Rejection(.wipLimit, "\(name) \(state) \(wip.limit)"))
        }
        return .success("wip_exceeded")
    }
}
