import BoardCore

extension FeedSentence {
    /// What the actor did to a card, its checklist or its comments.
    static func cardPredicate(_ n: FeedLookup) -> String {
        let card = n.card
        switch n.activity.kind {
        case "card.add":
            return "added \(card)" + (n.cardColumn.map { " to \($0)" } ?? "")
        case "card.edit": return edit(n)
        case "card.move":
            if let change = n.change("column"), let from = n.column(change.old), let to = n.column(change.new) {
                return "moved \(card) \(from) → \(to)"
            }
            return "reordered \(card)\(n.cardColumn.map { " in \($0)" } ?? "")"
        case "card.label", "card.unlabel":
            let (added, removed) = n.arrayDelta("labels")
            let names = (added + removed).map { n.label(LabelID($0)) }
            let list = names.isEmpty ? "a label" : "label " + names.joined(separator: ", ")
            return n.activity.kind == "card.label" ? "added \(list) to \(card)" : "removed \(list) from \(card)"
        case "card.assign", "card.unassign":
            let (added, removed) = n.arrayDelta("assignees")
            let users = (added + removed).isEmpty ? "someone" : (added + removed).joined(separator: ", ")
            return n.activity.kind == "card.assign" ? "assigned \(users) to \(card)" : "unassigned \(users) from \(card)"
        case "card.close": return "closed \(card)"
        case "card.reopen": return "reopened \(card)"
        case "card.archive": return "archived \(card)"
        case "card.restore": return "restored \(card)"
        case "card.purge": return "purged \(card)"
        case "checklist.add":
            let done = n.change("done")?.new.bool == true ? " (done)" : ""
            return "added \(n.itemText) to the checklist of \(card)\(done)"
        case "checklist.edit": return checklistEdit(n)
        case "checklist.remove": return "removed \(n.itemText) from the checklist of \(card)"
        case "comment.add": return "commented on \(card): \(commentText(n))"
        case "comment.edit": return "edited a comment on \(card): \(commentText(n))"
        case "comment.delete": return "deleted a comment on \(card)"
        default: return "changed \(card) (\(FeedText.truncate(n.activity.kind, max: titleMax)))"
        }
    }

    private static func commentText(_ n: FeedLookup) -> String {
        FeedText.truncate(n.activity.text ?? n.new("text") ?? "", max: textMax)
    }

    private static func edit(_ n: FeedLookup) -> String {
        let fields = ["title", "description", "due", "milestone", "ref"].filter { n.change($0) != nil }
        if fields == ["title"] {
            return "renamed \(n.card(title: n.old("title") ?? "")) → \(quoted(n.new("title")))"
        }
        let card = n.card
        if fields == ["description"] { return "edited the description of \(card)" }
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
        if n.change("description") != nil { clauses.append("description") }
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
