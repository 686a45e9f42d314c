extension Board {
    /// Undoes an earlier change by applying its inverse as a new op, or says why it cannot.
    ///
    /// Undo covers the actor's own changes only. It is refused with `undo_conflict` when any field the change set no
    /// longer holds the value it set (changed since by anyone, the actor included; a field set back to that value
    /// holds it), with `gone` when the change was to a card purged since, with `not_undoable` when the change has no
    /// inverse (chat, purges, deletions of labels, milestones and comments, member changes), and with `forbidden`
    /// when the change was someone else's. The creation of a label or milestone that a card has now is refused with
    /// `undo_conflict` too. The resulting activity carries `undo_of`.
    public func applyingUndo(
        of activity: Activity, inverse: Op?, context: ApplyContext
    ) -> Result<Change, Rejection> {
        var board = self
        return board.applyUndo(of: activity, inverse: inverse, context: context).map { result in
            Change(board: board, activity: result.activity, inverse: result.inverse, isNoop: result.isNoop)
        }
    }

    /// Undoes an earlier change in place; see `applyingUndo(of:inverse:context:)`.
    public mutating func applyUndo(
        of activity: Activity, inverse: Op?, context: ApplyContext
    ) -> Result<(activity: Activity, inverse: Op?, isNoop: Bool), Rejection> {
        switch undoCheck(of: activity, inverse: inverse, by: context.actor) {
        case .failure(let r): return .failure(r)
        case .success(let op):
            return apply(op, context: context).map { result in
                var undone = result.activity
                undone.undoOf = activity.seq
                return (undone, result.inverse, result.isNoop)
            }
        }
    }

    /// Why a change of `kind` has no undo, in a person's words.
    static func notUndoable(_ kind: String) -> String {
        switch Op.Kind(rawValue: kind) {
        case .chat?: "a chat line cannot be taken back"
        case .commentDelete?: "a deleted comment cannot be brought back"
        case .labelDelete?: "a deleted label cannot be brought back"
        case .milestoneDelete?: "a deleted milestone cannot be brought back"
        case .cardPurge?: "a purged card is gone for good"
        case .columnRemove?: "a removed column cannot be brought back"
        case .memberSet?, .memberRemove?: "a member change cannot be undone (set the role again)"
        default: "\(kind) cannot be undone"
        }
    }

    /// The op that undoes `activity` now, or why it cannot be undone.
    public func undoCheck(of activity: Activity, inverse: Op?, by actor: UserID) -> Result<Op, Rejection> {
        guard activity.actor == actor else {
            return .failure(Rejection(.forbidden, "you can only undo your own changes"))
        }
        guard let inverse else {
            return .failure(Rejection(.notUndoable, Self.notUndoable(activity.kind)))
        }
        if let card = activity.card, purged.contains(card) {
            return .failure(Rejection(.gone, "card \(card) was purged; seq \(activity.seq) can never be undone"))
        }
        let current = fields(of: Subject(of: activity))
        for (field, change) in activity.changes.sorted(by: { $0.key < $1.key }) {
            let now = current[field] ?? .null
            let holds: Bool
            switch (field, change.old, change.new, now) {
            case ("labels", .array(let old), .array(let new), .array(let cur)),
                ("assignees", .array(let old), .array(let new), .array(let cur)):
                let added = Set(new).subtracting(old)
                let removed = Set(old).subtracting(new)
                holds = added.isSubset(of: cur) && removed.isDisjoint(with: cur)
            default:
                holds = now == change.new
            }
            if !holds {
                return .failure(Rejection(.undoConflict, Self.undoConflictMessage(field), current: now))
            }
        }
        if let refusal = undoTakesAwayFromCards(inverse) { return .failure(refusal) }
        return .success(inverse)
    }

    /// Undoing the creation of a label or a milestone deletes it, which takes it off every card that has it since:
    /// work of others too, and a deletion cannot be redone. Refused while any card has it (archived ones included).
    func undoTakesAwayFromCards(_ inverse: Op) -> Rejection? {
        let (what, count, current): (String, Int, String)
        switch inverse {
        case .deleteLabel(let label):
            count = cards.values.count { $0.labels.contains(label) }
            what = "label \(labels.first { $0.id == label }?.name ?? label.rawValue)"
            current = "is on"
        case .deleteMilestone(let milestone):
            count = cards.values.count { $0.milestone == milestone }
            what = "milestone \(milestones.first { $0.id == milestone }?.title ?? milestone.rawValue)"
            current = "has"
        default:
            return nil
        }
        guard count > 0 else { return nil }
        let (cardsWord, those, them) = count == 1 ? ("1 card", "that card", "it") : ("\(count) cards", "those cards", "them")
        return Rejection(
            .undoConflict,
            "\(what) \(current) \(cardsWord) now; undoing its creation would take it off \(those) (remove it from \(them) first)",
            current: .int(Int64(count)))
    }

    /// Why an undo is refused, in a person's words: `its column was changed since; undoing would overwrite that`.
    /// The field names what a newer change touched (`archived` reads as "its archived state").
    static func undoConflictMessage(_ field: String) -> String {
        let words: String
        switch field {
        case "closed", "archived": words = "its \(field) state was"
        case "due": words = "its due date was"
        case "rank", "index": words = "its place was"
        case "wip_limit", "wip_hard": words = "its WIP limit was"
        case "in_progress": words = "whether it counts as in progress was"
        case "recur": words = "its recurrence rule was"
        case "remind_hours": words = "its reminder time was"
        case "done": words = "its tick was"
        case "blocked_by": words = "its blockers were"
        case "labels", "assignees", "watchers": words = "its \(field) were"
        default: words = "its \(field.replacingOccurrences(of: "_", with: " ")) was"
        }
        return "\(words) changed since; undoing would overwrite that"
    }
}
