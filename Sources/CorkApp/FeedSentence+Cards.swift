import BoardCore

extension FeedSentence {
    /// What the actor did to a card, its checklist or its comments.
    static func cardPredicate(_ n: FeedLookup, kind: Op.Kind) -> String {
        let card = n.card
        switch kind {
        case .cardAdd:
            // What the card came with, so others learn of its labels, due date, assignees and milestone at once.
            var with: [String] = []
            let labels = n.arrayDelta("labels").added.map { n.label(LabelID($0)) }
            if !labels.isEmpty { with.append("label\(labels.count == 1 ? "" : "s") " + labels.joined(separator: ", ")) }
            if let due = n.new("due") { with.append("due \(due)") }
            let assignees = n.arrayDelta("assignees").added.map { $0 == n.activity.actor.rawValue ? "themselves" : $0 }
            if !assignees.isEmpty { with.append("assigned " + assignees.joined(separator: ", ")) }
            if let m = n.new("milestone") { with.append("milestone \(quoted(n.milestone(MilestoneID(m))))") }
            return "added \(card)" + (n.cardColumn.map { " to \($0)" } ?? "") + (with.isEmpty ? "" : " (\(with.joined(separator: "; ")))")
        case .cardEdit: return edit(n)
        case .cardMove:
            if let change = n.change("column"), let from = n.column(change.old), let to = n.column(change.new) {
                guard let reason = n.activity.text else { return "moved \(card) \(from) → \(to)" }
                let past = (n.names?.cards ?? [:]).keys.sorted().map(n.otherCard).joined(separator: ", ")
                return "moved \(card) \(from) → \(to) although blocked" + (past.isEmpty ? "" : " by \(past)")
                    + ": \(FeedText.truncate(reason, max: n.textMax))"
            }
            return "reordered \(card)\(n.cardColumn.map { " in \($0)" } ?? "")"
        case .cardLabel, .cardUnlabel:
            let (added, removed) = n.arrayDelta("labels")
            let names = (added + removed).map { n.label(LabelID($0)) }
            let list = names.isEmpty ? "a label" : "label " + names.joined(separator: ", ")
            return kind == .cardLabel ? "added \(list) to \(card)" : "removed \(list) from \(card)"
        case .cardAssign, .cardUnassign:
            let (added, removed) = n.arrayDelta("assignees")
            // Whoever assigns themselves reads so (`bob assigned themselves to #1`), not as `bob assigned bob`.
            let names = (added + removed).map { $0 == n.activity.actor.rawValue ? "themselves" : $0 }
            let users = names.isEmpty ? "someone" : names.joined(separator: ", ")
            return kind == .cardAssign ? "assigned \(users) to \(card)" : "unassigned \(users) from \(card)"
        case .cardBlock, .cardUnblock:
            let (added, removed) = n.arrayDelta("blocked_by")
            let others = (added + removed).map(n.otherCard).joined(separator: ", ")
            let list = others.isEmpty ? "another card" : others
            return kind == .cardBlock ? "marked \(card) as blocked by \(list)" : "marked \(card) as no longer blocked by \(list)"
        case .cardRecur:
            guard let rule = n.change("recur")?.new, let recurrence = Recurrence(json: rule) else {
                return "stopped \(card) from recurring"
            }
            return "made \(card) recur \(recurrence)"
        case .cardWatch: return "watches \(card)"
        case .cardUnwatch: return "stopped watching \(card)"
        case .cardClose: return "closed \(card)"
        case .cardReopen: return "reopened \(card)"
        case .cardArchive: return "archived \(card)"
        case .cardRestore: return "restored \(card)"
        case .cardPurge: return "purged \(card)"
        case .checklistAdd:
            let done = n.change("done")?.new.bool == true ? " (done)" : ""
            return "added \(n.itemText) to the checklist of \(card)\(done)"
        case .checklistEdit: return checklistEdit(n)
        case .checklistRemove: return "removed \(n.itemText) from the checklist of \(card)"
        case .commentAdd: return "commented on \(card): \(commentText(n))"
        case .commentEdit: return "edited a comment on \(card): \(commentText(n))"
        case .commentDelete: return "deleted a comment on \(card)"
        case .boardRename, .boardRemind, .memberSet, .memberRemove, .columnAdd, .columnRename, .columnMove, .columnRemove,
            .columnWIP, .columnInProgress, .labelCreate, .labelUpdate, .labelDelete, .milestoneCreate, .milestoneUpdate,
            .milestoneClose, .milestoneReopen, .milestoneDelete, .chat:
            // Not about a card: the caller sends these elsewhere.
            return predicate(n)
        }
    }

    private static func commentText(_ n: FeedLookup) -> String {
        FeedText.truncate(n.activity.text ?? n.new("text") ?? "", max: n.textMax)
    }

    private static func edit(_ n: FeedLookup) -> String {
        let fields = ["title", "description", "due", "milestone", "ref"].filter { n.change($0) != nil }
        if fields == ["title"] {
            return "renamed \(n.card(title: n.old("title") ?? "")) → \(quoted(n.new("title")))"
        }
        let card = n.card
        if fields == ["description"] {
            guard let text = n.new("description"), !text.isEmpty else { return "cleared the description of \(card)" }
            return "edited the description of \(card): \(FeedText.truncate(text, max: min(n.textMax, FeedSentence.descriptionMax)))"
        }
        if fields == ["due"] {
            if let due = n.new("due") { return "set the due date of \(card) to \(due)" }
            return "cleared the due date of \(card)"
        }
        if fields == ["milestone"] {
            if let m = n.new("milestone") { return "added \(card) to milestone \(quoted(n.milestone(MilestoneID(m))))" }
            let old = n.old("milestone").map { " \(quoted(n.milestone(MilestoneID($0))))" } ?? ""
            return "removed \(card) from milestone\(old)"
        }
        if fields == ["ref"] {
            if let ref = n.new("ref") { return "set the ref of \(card) to \(FeedText.truncate(ref, max: titleMax))" }
            return "cleared the ref of \(card)"
        }
        var clauses: [String] = []
        if n.change("title") != nil { clauses.append("title \(quoted(n.old("title"))) → \(quoted(n.new("title")))") }
        if n.change("description") != nil { clauses.append(descriptionClause(n)) }
        if n.change("due") != nil { clauses.append(n.new("due").map { "due \($0)" } ?? "due cleared") }
        if n.change("milestone") != nil {
            clauses.append(n.new("milestone").map { "milestone \(quoted(n.milestone(MilestoneID($0))))" } ?? "milestone cleared")
        }
        if n.change("ref") != nil {
            clauses.append(n.new("ref").map { "ref \(FeedText.truncate($0, max: titleMax))" } ?? "ref cleared")
        }
        if clauses.isEmpty { return "edited \(card)" }
        return "edited \(card): \(clauses.joined(separator: ", "))"
    }

    private static func checklistEdit(_ n: FeedLookup) -> String {
        let card = n.card
        let done = n.change("done")?.new.bool
        if let text = n.change("text") {
            let base = "edited checklist item \(quoted(text.old.text)) → \(quoted(text.new.text)) on \(card)"
            guard let done else { return base }
            return base + (done ? " and checked it off" : " and unchecked it")
        }
        guard let done else { return "edited checklist item \(n.itemText) on \(card)" }
        return done ? "checked off \(n.itemText) on \(card)" : "unchecked \(n.itemText) on \(card)"
    }
}
