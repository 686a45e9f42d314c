/// Who is told what about one committed change: the entries of users' inboxes, derived from the change's activity
/// record and the board after it. Pure, so the server derives the same entries again after a restart or on another
/// node (the store keeps one per ``InboxEntry/key``).
///
/// - `mention`: `@user` (a member, by id, any case) in a comment, a chat line, a new card's description, or added
///   to a description by an edit; not for the actor.
/// - `assigned`: users added to a card's assignees by someone else.
/// - `comment`, `moved`: the card's watchers (its creator and assignees), for a comment on it and for a move to
///   another column, unless the same change already mentions or assigns them.
/// - `unblocked`: the watchers of each card whose last pending blocker this change made done (moved to the last
///   column, closed, archived or purged).
///
/// A recurring card's next occurrence, which the server adds, tells nobody: they were told of the first.
public enum InboxRules {
    /// Longest `text` of an entry, in characters.
    public static let textMax = 200

    /// The entries `activity` (just applied; `board` is the board after it) puts in inboxes, ids 0.
    public static func entries(for activity: Activity, board: Board) -> [InboxEntry] {
        var entries: [InboxEntry] = []
        var told: Set<String> = []
        func add(_ user: UserID, _ kind: InboxEntry.Kind, card: CardID?, _ text: String) {
            guard user != activity.actor, board.members[user] != nil else { return }
            let entry = InboxEntry(
                user: user, board: board.id, seq: activity.seq, card: card, kind: kind, actor: activity.actor,
                at: activity.at, text: clip(text))
            guard told.insert(entry.key).inserted else { return }
            entries.append(entry)
        }
        let card = activity.card.flatMap { board.cards[$0] }
        // The title quoted, as the feed has it: a comment, a column name or a sentence follows it.
        let label = card.map { "#\($0.number) \"\($0.title)\"" } ?? ""
        let kind = Op.Kind(rawValue: activity.kind)
        var mentioned: Set<UserID> = []
        // The next occurrence of a recurring card, added by the server (``RecurrenceRules``): its description's
        // mentions and its assignees were told of the first one; telling them again at every occurrence (a daily
        // card: every day, by mail too) is noise. Its due date still reminds them as it comes.
        if kind == .cardAdd, activity.actor == ReminderRules.actor, card?.ref?.hasPrefix(RecurrenceRules.refPrefix) == true {
            return []
        }

        // Mentions.
        var mentionText: String?
        var previous = ""
        switch kind {
        case .commentAdd, .chat: mentionText = activity.text
        case .cardAdd: mentionText = activity.changes["description"]?.new.stringValue
        case .cardEdit:
            mentionText = activity.changes["description"]?.new.stringValue
            previous = activity.changes["description"]?.old.stringValue ?? ""
        default: break
        }
        if let text = mentionText {
            let before = Set(mentions(in: previous, board: board))
            for user in mentions(in: text, board: board) where !before.contains(user) {
                mentioned.insert(user)
                let said = kind == .chat ? text : kind == .commentAdd ? "\(label): \(text)" : "\(label) (description)"
                add(user, .mention, card: kind == .chat ? nil : activity.card, said)
            }
        }

        // Assignments.
        if let change = activity.changes["assignees"] {
            let old = Set(change.old.stringArray)
            for user in change.new.stringArray.map { UserID($0) } where !old.contains(user.rawValue) && !mentioned.contains(user) {
                mentioned.insert(user)
                add(user, .assigned, card: activity.card, "assigned you to \(label)")
            }
        }

        // Watchers: comments and moves.
        if let card {
            let watchers = watchers(of: card).filter { !mentioned.contains($0) }
            if kind == .commentAdd {
                for user in watchers { add(user, .comment, card: card.id, "\(label): \(activity.text ?? "")") }
            }
            if kind == .cardMove, let change = activity.changes["column"], let from = change.old.stringValue,
                let to = change.new.stringValue
            {
                let text = "moved \(label) \(columnName(from, board)) → \(columnName(to, board))"
                for user in watchers { add(user, .moved, card: card.id, text) }
            }
        }

        // Cards this change unblocked.
        if let id = activity.card, madeDone(activity, board: board) {
            let doneLabel = card == nil ? activity.names?.title.map { "\"\($0)\"" } ?? "a card" : label
            // Archived or deleted is not finished: the words say which, so nobody starts work whose prerequisite
            // was dropped thinking it was done.
            let how = switch Op.Kind(rawValue: activity.kind) {
            case .cardArchive: "was archived"
            case .cardPurge: "was deleted"
            default: "is done"
            }
            for waiting in board.blocked(by: id) where !board.isBlocked(waiting) {
                for user in watchers(of: waiting) {
                    add(user, .unblocked, card: waiting.id, "#\(waiting.number) \"\(waiting.title)\" is no longer blocked: \(doneLabel) \(how)")
                }
            }
        }
        return entries
    }

    /// A card's watchers: its creator, its assignees and who pressed watch, sorted.
    public static func watchers(of card: Card) -> [UserID] {
        Array(Set([card.createdBy] + card.assignees + card.watchers)).sorted()
    }

    /// The members `text` mentions as `@id` (any case), in order of first mention.
    public static func mentions(in text: String, board: Board) -> [UserID] {
        guard text.contains("@") else { return [] }
        let byLowercase = Dictionary(board.members.keys.map { ($0.rawValue.lowercased(), $0) }, uniquingKeysWith: { a, _ in a })
        var found: [UserID] = []
        let scalars = Array(text.unicodeScalars)
        var i = 0
        while i < scalars.count {
            defer { i += 1 }
            guard scalars[i] == "@" else { continue }
            // `a@b` is an address, not a mention.
            if i > 0, isNameScalar(scalars[i - 1]) { continue }
            var j = i + 1
            while j < scalars.count, isNameScalar(scalars[j]) { j += 1 }
            var name = String(String.UnicodeScalarView(scalars[(i + 1)..<j]))
            // A sentence's full stop is not part of the name.
            while name.hasSuffix(".") { name.removeLast() }
            if let user = byLowercase[name.lowercased()], !found.contains(user) { found.append(user) }
            i = j - 1
        }
        return found
    }

    private static func isNameScalar(_ s: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(s) || ("A"..."Z").contains(s) || ("0"..."9").contains(s) || s == "_" || s == "-" || s == "."
    }

    /// Whether the change made its card done: into the last column, closed, archived or purged, from open.
    static func madeDone(_ activity: Activity, board: Board) -> Bool {
        let changes = activity.changes
        let last = board.columns.last?.id.rawValue
        switch Op.Kind(rawValue: activity.kind) {
        case .cardMove:
            guard let change = changes["column"] else { return false }
            return change.new.stringValue == last && change.old.stringValue != last
        case .cardClose:
            guard changes["closed"] != nil, let card = activity.card.flatMap({ board.cards[$0] }) else { return false }
            return !card.archived && card.column.rawValue != last
        case .cardArchive:
            guard changes["archived"] != nil, let card = activity.card.flatMap({ board.cards[$0] }) else { return false }
            return !card.closed && card.column.rawValue != last
        case .cardPurge:
            // Purged: its old fields are in `changes`.
            return changes["closed"]?.old.boolValue == false && changes["archived"]?.old.boolValue == false
                && changes["column"]?.old.stringValue != last
        default:
            return false
        }
    }

    static func columnName(_ id: String, _ board: Board) -> String { board.column(ColumnID(id))?.name ?? id }

    static func clip(_ text: String) -> String {
        let line = String(text.map { $0.isNewline ? " " : $0 })
        return line.count <= textMax ? line : String(line.prefix(textMax - 1)) + "…"
    }
}

extension JSONValue {
    /// The boolean, if this is one.
    var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    /// The strings of an array (others skipped); empty for anything else.
    var stringArray: [String] {
        if case .array(let values) = self { return values.compactMap(\.stringValue) }
        return []
    }
}

extension InboxRules {
    /// The kinds of entry that say how something is (and so may stop being true), not that something happened.
    public static let mayGoStale: [InboxEntry.Kind] = [.assigned, .dueSoon, .overdue, .unblocked]

    /// Whether `entry` no longer says what is so on `board` (the board as it is now): an assignment undone, a due
    /// date moved, cleared or met, a card blocked again, the card gone or archived. Such an entry stays in the inbox
    /// but is not mailed: a mail goes out minutes later, and one that says what stopped being true misleads. Other
    /// kinds (a mention, a comment, a move) tell of something that happened, which stays true.
    public static func isStale(_ entry: InboxEntry, on board: Board, today: Day) -> Bool {
        guard mayGoStale.contains(entry.kind), let id = entry.card else { return false }
        guard let card = board.cards[id], !card.archived else { return true }
        switch entry.kind {
        case .assigned:
            return !card.assignees.contains(entry.user)
        case .dueSoon:
            guard let due = card.due, !board.isDone(card) else { return true }
            // The reminder names the day, or says "today" on the day itself.
            let named = entry.text.contains(due.description) || (entry.text.hasSuffix("is due today") && due == entry.at.day)
            return !named
        case .overdue:
            return !board.isOverdue(card, today: today)
        default:
            return card.blockedBy.contains { board.cards[$0].map { !board.isDone($0) } ?? false }
        }
    }
}

