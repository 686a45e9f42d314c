/// Dependencies between cards: `card.block`, `card.unblock`, `column.in_progress`, and the rule that a blocked card
/// does not enter an in-progress column unless an editor forces it with a reason.
extension Board {
    /// The cards `card` still waits for, in number order: its blockers that exist, are not archived and are not
    /// done (closed or in the last column). Empty when it can go ahead.
    public func blockers(of card: Card) -> [Card] {
        guard !card.blockedBy.isEmpty else { return [] }
        return card.blockedBy.compactMap { cards[$0] }
            .filter { !$0.archived && !isDone($0) }
            .sorted { $0.number < $1.number }
    }

    /// Whether `card` waits for another card.
    public func isBlocked(_ card: Card) -> Bool { !blockers(of: card).isEmpty }

    /// The open cards `card` blocks (those whose `blocked_by` names it), in number order.
    public func blocked(by card: CardID) -> [Card] {
        cards.values.filter { !$0.archived && $0.blockedBy.contains(card) }.sorted { $0.number < $1.number }
    }

    /// `#2 Fix login, #3 Ship it` for the rejection and the activity.
    static func list(_ cards: [Card]) -> String {
        cards.map { "#\($0.number) \($0.title)" }.joined(separator: ", ")
    }

    mutating func blockCard(_ id: CardID, by blocker: CardID) -> Result<Outcome, Rejection> {
        let card: Card
        switch existingCard(id) {
        case .success(let c): card = c
        case .failure(let r): return .failure(r)
        }
        let other: Card
        switch existingCard(blocker) {
        case .success(let c): other = c
        case .failure(let r): return .failure(r)
        }
        if id == blocker { return .failure(Rejection(.cycle, "card #\(card.number) cannot wait for itself")) }
        if card.blockedBy.contains(blocker) { return .success(Outcome()) }
        if card.blockedBy.count >= Limits.blockersPerCardMax {
            return .failure(Rejection(.tooLarge, "a card waits for at most \(Limits.blockersPerCardMax) cards"))
        }
        if let path = path(from: blocker, to: id) {
            let chain = path.compactMap { cards[$0].map { "#\($0.number)" } }.joined(separator: " → ")
            return .failure(
                Rejection(.cycle, "#\(other.number) already waits for #\(card.number) (\(chain)); that would be a cycle"))
        }
        return modifyCard(id) { card in
            card.blockedBy.append(blocker)
            card.blockedBy.sort()
            return .success(Outcome(inverse: .unblockCard(card: id, by: blocker)))
        }
    }

    mutating func unblockCard(_ id: CardID, by blocker: CardID) -> Result<Outcome, Rejection> {
        if case .failure(let r) = existingCard(id) { return .failure(r) }
        return modifyCard(id) { card in
            guard let i = card.blockedBy.firstIndex(of: blocker) else { return .success(Outcome()) }
            card.blockedBy.remove(at: i)
            return .success(Outcome(inverse: .blockCard(card: id, by: blocker)))
        }
    }

    /// The chain of `blocked_by` links from `start` to `target` (both included), or nil when there is none.
    func path(from start: CardID, to target: CardID) -> [CardID]? {
        var previous: [CardID: CardID] = [:]
        var queue = [start]
        var seen: Set<CardID> = [start]
        var head = 0
        while head < queue.count {
            let current = queue[head]
            head += 1
            if current == target {
                var path = [current]
                while let back = previous[path[0]] { path.insert(back, at: 0) }
                return path
            }
            for next in cards[current]?.blockedBy ?? [] where !seen.contains(next) {
                seen.insert(next)
                previous[next] = current
                queue.append(next)
            }
        }
        return nil
    }

    mutating func setInProgress(_ id: ColumnID, _ on: Bool) -> Result<Outcome, Rejection> {
        guard let i = columnIndex(id) else { return .failure(Rejection(.notFound, "no column \(id) on this board")) }
        let old = columns[i].isInProgress
        // The default is stored as nil, so that marking a column back to its default leaves no trace.
        columns[i].inProgress = on == (id == Column.defaultInProgress) ? nil : on
        return .success(Outcome(inverse: .setInProgress(column: id, on: old)))
    }

    /// Whether `card` may move into `column`: nil when it may; the refusal otherwise. A forced move names its
    /// reason, which the activity keeps (`text`).
    func dependencyCheck(_ card: Card, into column: ColumnID, force: String?, role: Role) -> Result<String?, Rejection> {
        guard column != card.column, self.column(column)?.isInProgress == true else { return .success(nil) }
        let waiting = blockers(of: card)
        guard !waiting.isEmpty else { return .success(nil) }
        let name = self.column(column)?.name ?? column.rawValue
        // Only owners and editors may force it: the others are not offered what they would be refused.
        let mayForce = role == .owner || role == .editor
        guard let force else {
            return .failure(
                Rejection(
                    .blocked,
                    "#\(card.number) is blocked by \(Board.list(waiting)); finish those first"
                        + (mayForce ? ", or move it with a reason" : " (an owner or editor may move it anyway, with a reason)"),
                    current: .strings(waiting.map(\.id.rawValue))))
        }
        guard mayForce else {
            return .failure(Rejection(.forbidden, "only an owner or editor can move a blocked card into \(name)"))
        }
        if let problem = Validate.text(force, "the reason", maxBytes: Limits.forceReasonMaxBytes, allowEmpty: false) {
            return .failure(problem)
        }
        return .success(force)
    }
}

extension Board {
    mutating func setRecurrence(_ id: CardID, _ recurrence: Recurrence?) -> Result<Outcome, Rejection> {
        if case .failure(let r) = existingCard(id) { return .failure(r) }
        if let problem = recurrence?.problem { return .failure(Rejection(.invalid, problem)) }
        return modifyCard(id) { card in
            let old = card.recur
            card.recur = recurrence
            return .success(Outcome(inverse: .setRecurrence(card: id, recurrence: old)))
        }
    }
}

extension Board {
    mutating func setWatching(_ id: CardID, _ user: UserID, _ watching: Bool) -> Result<Outcome, Rejection> {
        if case .failure(let r) = existingCard(id) { return .failure(r) }
        return modifyCard(id) { card in
            if watching {
                if card.watchers.contains(user) { return .success(Outcome()) }
                if card.watchers.count >= Limits.watchersPerCardMax {
                    return .failure(Rejection(.tooLarge, "a card has at most \(Limits.watchersPerCardMax) watchers"))
                }
                card.watchers.append(user)
                card.watchers.sort()
                return .success(Outcome(inverse: .unwatchCard(card: id)))
            }
            guard let i = card.watchers.firstIndex(of: user) else { return .success(Outcome()) }
            card.watchers.remove(at: i)
            return .success(Outcome(inverse: .watchCard(card: id)))
        }
    }
}
