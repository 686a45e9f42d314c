extension Query {
    /// Whether `card` matches: it is archived exactly when the query selects archived cards, and passes every term.
    public func matches(_ card: Card, in board: Board, context: QueryContext) -> Bool {
        guard card.archived == selectsArchived else { return false }
        return terms.allSatisfy { $0.matches(card, in: board, context: context) }
    }

    /// The matching cards in board order: column by column as in `board.columns`, then by `Card.positionOrder`.
    public func filter(_ board: Board, context: QueryContext) -> [Card] {
        board.orderedCards.filter { matches($0, in: board, context: context) }
    }
}

extension QueryTerm {
    /// Whether `card` passes this term alone (which cards are in scope, archived or not, is up to `Query`).
    public func matches(_ card: Card, in board: Board, context: QueryContext) -> Bool {
        switch self {
        case .word(let word):
            return QueryTerm.freeText(word, matches: card)
        case .number(let n):
            return card.number == n
        case .label(let names):
            let wanted = Set(names.map { $0.lowercased() })
            return card.labels.contains { id in
                wanted.contains(id.rawValue.lowercased())
                    || board.label(id).map { wanted.contains($0.name.lowercased()) } == true
            }
        case .assignee(let values):
            return values.contains { $0.matches(card, context: context) }
        case .due(let values):
            return values.contains { $0.matches(card, in: board, today: context.today) }
        case .status(let values):
            return values.contains { $0 == (card.closed ? .closed : .open) }
        case .column(let names):
            let wanted = Set(names.map { $0.lowercased() })
            return wanted.contains(card.column.rawValue.lowercased())
                || board.column(card.column).map { wanted.contains($0.name.lowercased()) } == true
        case .milestone(let values):
            return values.contains { $0.matches(card, in: board) }
        case .ref(let patterns):
            guard let ref = card.ref else { return false }
            let text = Array(ref)
            return patterns.contains { QueryTerm.glob(Array($0), matches: text) }
        case .archived:
            return card.archived
        case .blocked:
            return board.isBlocked(card)
        case .blocks(let targets):
            return targets.contains { target in
                let wanted = target.hasPrefix("#") ? String(target.dropFirst()) : target
                let blocked = Int(wanted).flatMap { n in board.cards.values.first { $0.number == n } }
                    ?? board.cards[CardID(target)]
                return blocked?.blockedBy.contains(card.id) == true
            }
        case .not(let term):
            return !term.matches(card, in: board, context: context)
        }
    }

    /// Free-text match: a case-insensitive substring of title, description or ref, or the number for all digits.
    static func freeText(_ word: String, matches card: Card) -> Bool {
        let needle = word.lowercased()
        if needle.isEmpty { return true }
        if card.title.lowercased().contains(needle) || card.description.lowercased().contains(needle) {
            return true
        }
        if let ref = card.ref, ref.lowercased().contains(needle) { return true }
        if let n = Query.cardNumber(Substring(word)) { return card.number == n }
        return false
    }

    /// Whether `text` matches a glob: `*` matches any run (even empty), `?` exactly one character, all else itself.
    static func glob(_ pattern: [Character], matches text: [Character]) -> Bool {
        var p = 0, t = 0
        var star: (p: Int, t: Int)?
        while t < text.count {
            if p < pattern.count, pattern[p] == "*" {
                star = (p, t)
                p += 1
            } else if p < pattern.count, pattern[p] == "?" || pattern[p] == text[t] {
                p += 1
                t += 1
            } else if let last = star {
                star = (last.p, last.t + 1)
                p = last.p + 1
                t = last.t + 1
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}

extension QueryTerm.AssigneeValue {
    /// Whether the card's assignees pass this alternative; user ids compare ignoring case.
    func matches(_ card: Card, context: QueryContext) -> Bool {
        switch self {
        case .none: return card.assignees.isEmpty
        case .me:
            guard let me = context.me else { return false }
            return QueryTerm.AssigneeValue.user(me.rawValue).matches(card, context: context)
        case .user(let name):
            let wanted = name.lowercased()
            return card.assignees.contains { $0.rawValue.lowercased() == wanted }
        }
    }
}

extension QueryTerm.DueValue {
    /// Whether the card's due date passes this alternative on `today`.
    func matches(_ card: Card, in board: Board, today: Day) -> Bool {
        switch self {
        case .overdue: return board.isOverdue(card, today: today)
        case .none: return card.due == nil
        default: break
        }
        guard let due = card.due else { return false }
        switch self {
        case .today: return due == today
        case .week: return today <= due && due <= today.adding(days: 6)
        case .on(let day): return due == day
        case .before(let day): return due < day
        case .onOrBefore(let day): return due <= day
        case .after(let day): return due > day
        case .onOrAfter(let day): return due >= day
        case .any, .overdue, .none: return true
        }
    }
}

extension QueryTerm.MilestoneValue {
    /// Whether the card's milestone passes this alternative: by title or id, ignoring case.
    func matches(_ card: Card, in board: Board) -> Bool {
        switch self {
        case .none: return card.milestone == nil
        case .named(let name):
            guard let id = card.milestone else { return false }
            let wanted = name.lowercased()
            return id.rawValue.lowercased() == wanted || board.milestone(id)?.title.lowercased() == wanted
        }
    }
}
