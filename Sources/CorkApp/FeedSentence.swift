import BoardCore

/// One activity record as one human sentence, for the chat-style feed and `cork watch`.
///
/// `alice moved #12 "Login bug" TODO → DOING`, `ci-bot commented on #7 "Build": build 512 passed`,
/// `alice moved #3 "Ship corkd" DOING → TODO (undo of seq 11)`, and chat as `<alice> text`. Names are those of the
/// change's own time, from the record's `names`; a record without them (stored before they existed) takes them from
/// the board after the change, else the board before it, else the record's own `changes`, else the ids. Titles are cut to
/// `titleMax` characters and comment or chat text to `textMax`, with `…`. The result is one plain line: no colours
/// and no control characters.
public enum FeedSentence {
    /// Longest card, label or milestone title shown, in characters (the `…` included).
    public static let titleMax = FeedText.titleMax
    /// Longest comment or chat text shown, in characters (the `…` included).
    public static let textMax = FeedText.textMax
    /// Longest description text shown, in every feed (the `…` included): about one line. A description runs to
    /// 16 KiB, and the full-screen feed, which shows chat and comments whole, would give a long one a screenful in
    /// everyone's feed. The card's detail has the rest.
    public static let descriptionMax = 80

    /// The sentence for `activity`, given the board after the change and, when known, the board before it.
    /// `textMax` cuts long comment, chat and description text with `…` (one line for `cork watch`); the full-screen
    /// feed passes `Int.max` and wraps the whole text instead.
    ///
    /// An undo's record names what it undoes by seq (`(undo of seq 11)`: `cork watch` and `cork history` print each
    /// record's seq). A feed that shows no seqs passes `undoWords`: `(undo)`, or `(redo)` when `undoneWasUndo` says
    /// the change undone was itself an undo.
    public static func render(
        _ activity: Activity, after: Board, before: Board? = nil, textMax: Int = FeedSentence.textMax,
        undoWords: Bool = false, undoneWasUndo: Bool = false
    ) -> String {
        let actor = FeedText.oneLine(activity.actor.rawValue)
        let names = FeedLookup(activity: activity, after: after, before: before, textMax: textMax)
        if activity.kind == "chat" {
            return "<\(actor)> \(FeedText.truncate(activity.text ?? "", max: textMax))"
        }
        var sentence = predicate(names)
        // An undo's record is its own effect (undoing a restore archives): said as what it did, then whose undo it
        // is, so it never reads as if seq N had done it. A redo is an undo of an undo.
        if let undone = activity.undoOf {
            sentence += undoWords ? (undoneWasUndo ? " (redo)" : " (undo)") : " (undo of seq \(undone))"
        }
        if let warning = activity.warning { sentence += " (\(describe(warning: warning, names)))" }
        return "\(actor) \(sentence)"
    }

    /// What `activity` did, without the actor or an undo's note: `moved #12 "Login bug" TODO → DOING`.
    public static func describe(_ activity: Activity, after: Board, before: Board? = nil) -> String {
        predicate(FeedLookup(activity: activity, after: after, before: before))
    }

    /// What the actor did, without the actor: `moved #12 "Login bug" TODO → DOING`.
    static func predicate(_ n: FeedLookup) -> String {
        guard let kind = Op.Kind(rawValue: n.activity.kind) else {
            // A kind this client does not know (a newer server): say what it is called rather than guess.
            if n.activity.card != nil { return "changed \(n.card) (\(FeedText.truncate(n.activity.kind, max: titleMax)))" }
            return "made a change (\(FeedText.truncate(n.activity.kind, max: titleMax)))"
        }
        switch kind {
        case .cardAdd, .cardEdit, .cardMove, .cardLabel, .cardUnlabel, .cardAssign, .cardUnassign, .cardBlock,
            .cardUnblock, .cardRecur, .cardWatch, .cardUnwatch, .cardClose,
            .cardReopen, .cardArchive, .cardRestore, .cardPurge, .checklistAdd, .checklistEdit, .checklistRemove,
            .commentAdd, .commentEdit, .commentDelete:
            return cardPredicate(n, kind: kind)
        case .boardRename:
            return "renamed the board \(quoted(n.old("name"))) → \(quoted(n.new("name")))"
        case .boardRemind:
            let hours = n.change("remind_hours")?.new.int
            return "set reminders to " + (hours.map { "\($0) h before a card is due" } ?? "the server's default (a day ahead)")
        case .memberSet: return memberSet(n)
        case .memberRemove: return "removed \(n.activity.member?.rawValue ?? "a member") from the board"
        case .columnAdd: return "added column \(n.subjectColumn)"
        case .columnRename: return "renamed column \(n.old("name") ?? "?") → \(n.new("name") ?? n.subjectColumn)"
        case .columnMove:
            let position = n.change("index")?.new.int.map { " to position \($0 + 1)" } ?? ""
            return "moved column \(n.subjectColumn)\(position)"
        case .columnRemove: return "removed column \(n.subjectColumn)"
        case .columnWIP: return wip(n)
        case .columnInProgress:
            let on = n.change("in_progress").map { $0.new.bool ?? ($0.old.bool == false) } ?? true
            return "marked column \(n.subjectColumn) as \(on ? "in progress" : "not in progress")"
        case .labelCreate:
            let color = n.new("color").map { " (\($0))" } ?? ""
            return "created label \(n.subjectLabel)\(color)"
        case .labelUpdate: return labelUpdate(n)
        case .labelDelete: return "deleted label \(n.subjectLabel)"
        case .milestoneCreate:
            let due = n.new("due").map { " due \($0)" } ?? ""
            return "created milestone \(FeedText.quotedTitle(n.subjectMilestone))\(due)"
        case .milestoneUpdate: return milestoneUpdate(n)
        case .milestoneClose: return "closed milestone \(FeedText.quotedTitle(n.subjectMilestone))"
        case .milestoneReopen: return "reopened milestone \(FeedText.quotedTitle(n.subjectMilestone))"
        case .milestoneDelete: return "deleted milestone \(FeedText.quotedTitle(n.subjectMilestone))"
        case .chat: return "said \(FeedText.truncate(n.activity.text ?? "", max: n.textMax))"
        }
    }

    /// `"text"` cut to `titleMax`, or `""` for nothing.
    static func quoted(_ text: String?) -> String { FeedText.quotedTitle(text ?? "") }

    /// A description's change among others: its new text (first line, cut like a title), or that it was cleared.
    static func descriptionClause(_ n: FeedLookup) -> String {
        guard let text = n.new("description"), !text.isEmpty else { return "description cleared" }
        return "description \(quoted(text))"
    }

    private static func memberSet(_ n: FeedLookup) -> String {
        let user = n.activity.member?.rawValue ?? "a member"
        let name = n.new("name").flatMap { $0.isEmpty ? nil : " (\(FeedText.truncate($0, max: titleMax)))" } ?? ""
        if let role = n.change("role") {
            if role.old == .null { return "added \(user) as \(role.new.text ?? "member")\(name)" }
            return "changed \(user)'s role \(role.old.text ?? "?") → \(role.new.text ?? "?")"
        }
        if let change = n.change("name") {
            if change.new.text?.isEmpty ?? true { return "cleared the display name of \(user)" }
            if change.old.text?.isEmpty ?? true { return "named member \(user) \(quoted(change.new.text))" }
            return "renamed member \(user) \(quoted(change.old.text)) → \(quoted(change.new.text))"
        }
        return "updated member \(user)"
    }

    private static func wip(_ n: FeedLookup) -> String {
        let hard = n.change("wip_hard")?.new.bool
            ?? n.activity.column.flatMap { n.after.column($0)?.wip?.hard } ?? false
        guard let limit = n.change("wip_limit") else {
            // Only hard ↔ soft changed; the limit stays (from the board of the change's time when known).
            let kept = n.activity.column.flatMap { n.after.column($0)?.wip?.limit }.map { " (\($0))" } ?? ""
            return "made the WIP limit of \(n.subjectColumn)\(kept) \(hard ? "hard" : "soft")"
        }
        guard let value = limit.new.int else { return "cleared the WIP limit of \(n.subjectColumn)" }
        return "set the WIP limit of \(n.subjectColumn) to \(value) (\(hard ? "hard" : "soft"))"
    }

    private static func labelUpdate(_ n: FeedLookup) -> String {
        var parts: [String] = []
        if let name = n.change("name") {
            parts.append("renamed label \(name.old.text ?? "?") → \(name.new.text ?? "?")")
        }
        if let color = n.change("color") {
            let subject = parts.isEmpty ? "label \(n.subjectLabel)" : "it"
            parts.append("recoloured \(subject) \(color.old.text ?? "?") → \(color.new.text ?? "?")")
        }
        return parts.isEmpty ? "updated label \(n.subjectLabel)" : parts.joined(separator: " and ")
    }

    private static func milestoneUpdate(_ n: FeedLookup) -> String {
        let subject = FeedText.quotedTitle(n.subjectMilestone)
        let fields = ["title", "description", "due"].filter { n.change($0) != nil }
        if fields == ["title"] { return "renamed milestone \(quoted(n.old("title"))) → \(quoted(n.new("title")))" }
        if fields == ["due"] {
            if let due = n.new("due") { return "set the due date of milestone \(subject) to \(due)" }
            return "cleared the due date of milestone \(subject)"
        }
        if fields == ["description"] {
            guard let text = n.new("description"), !text.isEmpty else { return "cleared the description of milestone \(subject)" }
            return "edited the description of milestone \(subject): \(FeedText.truncate(text, max: min(n.textMax, FeedSentence.descriptionMax)))"
        }
        var clauses: [String] = []
        if n.change("title") != nil { clauses.append("title \(quoted(n.old("title"))) → \(quoted(n.new("title")))") }
        if n.change("description") != nil { clauses.append(descriptionClause(n)) }
        if n.change("due") != nil { clauses.append(n.new("due").map { "due \($0)" } ?? "due cleared") }
        if clauses.isEmpty { return "updated milestone \(subject)" }
        return "updated milestone \(subject): \(clauses.joined(separator: ", "))"
    }

    private static func describe(warning: String, _ n: FeedLookup) -> String {
        guard warning == "wip_exceeded" else { return "warning: \(FeedText.truncate(warning, max: titleMax))" }
        return "\(n.cardColumn ?? "the column") is over its WIP limit"
    }
}
