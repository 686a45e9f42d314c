/// Where a placement resolved to: the card's new rank, and new ranks for the whole column when it had to be re-keyed.
struct ResolvedPlacement: Equatable {
    var rank: Rank
    var rekeyed: [CardID: Rank]
}

/// A card's place in a column, without the rest of the card.
struct Slot: Equatable {
    var id: CardID
    var rank: Rank
    var archived: Bool

    /// Board order: by rank, then by id (as `Card.positionOrder`).
    static func order(_ a: Slot, _ b: Slot) -> Bool { a.rank != b.rank ? a.rank < b.rank : a.id < b.id }
}

extension Board {
    /// Turns a placement intent into a rank in `column` for `card` (which may already sit in that column).
    ///
    /// Neighbours are taken from every card of the column, archived ones included, so ranks stay unique. When the
    /// card already satisfies the placement its rank is kept, so repeating a move is a no-op. When no short rank
    /// fits between the neighbours, the column is re-keyed with evenly spaced ranks (deterministically, so every
    /// replica that replays the op re-keys the same way).
    func resolve(_ placement: Placement, in column: ColumnID, for card: CardID) -> Result<ResolvedPlacement, Rejection> {
        // The common placements (at the end, after or before a card) need only the two neighbours: one scan, no
        // sort. Only a re-key needs the whole column in order, and `index`/`rank` placements take the full path.
        if placement.index == nil, placement.rank == nil {
            switch neighbours(placement, in: column, for: card) {
            case .failure(let rejection): return .failure(rejection)
            case .success(let (lower, upper)):
                if let settled = settle(card, in: column, between: lower, and: upper) { return .success(settled) }
            }
        }
        return resolveSorted(placement, in: column, for: card)
    }

    /// `resolve` over the whole column in order: every kind of placement, and the re-key.
    func resolveSorted(_ placement: Placement, in column: ColumnID, for card: CardID) -> Result<ResolvedPlacement, Rejection> {
        // Small slots, not whole cards, already in order (the per-column index): copying and sorting `Card` values
        // (a dozen strings and arrays each) made placement the server's hottest path on big boards.
        var ordered = currentSlots[column]
        if let me = cardTable[card], me.column == column {
            let at = ColumnSlots.position(of: card, rank: me.rank, in: ordered)
            if at < ordered.count, ordered[at].id == card { ordered.remove(at: at) }
        }
        // `slot` is the index in `ordered` the card will take: it goes between ordered[slot-1] and ordered[slot].
        var slot: Int
        if let after = placement.after {
            if after == card { return .failure(Rejection(.invalid, "a card cannot be placed after itself")) }
            guard let i = ordered.firstIndex(where: { $0.id == after }) else {
                return .failure(notInColumn(after, column))
            }
            slot = i + 1
        } else if let before = placement.before {
            if before == card { return .failure(Rejection(.invalid, "a card cannot be placed before itself")) }
            guard let i = ordered.firstIndex(where: { $0.id == before }) else {
                return .failure(notInColumn(before, column))
            }
            slot = i
        } else if let index = placement.index {
            guard index >= 0 else { return .failure(Rejection(.invalid, "index must not be negative")) }
            let visible = ordered.indices.filter { !ordered[$0].archived }
            // Already at that index among the unarchived cards: keep the rank, whatever archived cards sit nearby.
            if let current = cards[card], current.column == column, !current.archived {
                let me = Slot(id: current.id, rank: current.rank, archived: false)
                let above = visible.reduce(0) { $0 + (Slot.order(ordered[$1], me) ? 1 : 0) }
                if above == min(index, visible.count) {
                    return .success(ResolvedPlacement(rank: current.rank, rekeyed: [:]))
                }
            }
            if index < visible.count {
                slot = visible[index]
            } else {
                slot = visible.last.map { $0 + 1 } ?? 0
            }
        } else if let rank = placement.rank {
            slot = ordered.firstIndex { $0.rank > rank || ($0.rank == rank && $0.id > card) } ?? ordered.count
            let taken = ordered.contains { $0.rank == rank }
            if !taken {
                return .success(ResolvedPlacement(rank: rank, rekeyed: [:]))
            }
        } else {
            slot = ordered.count
        }

        let lower = slot > 0 ? ordered[slot - 1] : nil
        let upper = slot < ordered.count ? ordered[slot] : nil
        if let settled = settle(card, in: column, between: lower, and: upper) { return .success(settled) }
        // Re-key: the column in its new order, evenly spaced.
        var order = ordered.map(\.id)
        order.insert(card, at: slot)
        let ranks = Rank.evenlySpaced(count: order.count)
        var rekeyed: [CardID: Rank] = [:]
        for (id, rank) in zip(order, ranks) where id != card { rekeyed[id] = rank }
        return .success(ResolvedPlacement(rank: ranks[slot], rekeyed: rekeyed))
    }

    /// The card's rank between `lower` and `upper` without a re-key: its current one when it already sits there,
    /// else a short rank between them; nil when only a re-key makes room.
    private func settle(_ card: CardID, in column: ColumnID, between lower: Slot?, and upper: Slot?) -> ResolvedPlacement? {
        if let current = cards[card], current.column == column {
            let me = Slot(id: current.id, rank: current.rank, archived: current.archived)
            let afterLower = lower.map { Slot.order($0, me) } ?? true
            let beforeUpper = upper.map { Slot.order(me, $0) } ?? true
            if afterLower && beforeUpper { return ResolvedPlacement(rank: current.rank, rekeyed: [:]) }
        }
        if let rank = Rank.between(lower?.rank, upper?.rank), rank.rawValue.utf8.count <= Rank.rekeyThreshold {
            return ResolvedPlacement(rank: rank, rekeyed: [:])
        }
        return nil
    }

    /// The neighbours the card goes between for an end, `after` or `before` placement, in one pass over the column
    /// (the card itself left out), with the same answers and refusals as the sorted path.
    private func neighbours(
        _ placement: Placement, in column: ColumnID, for card: CardID
    ) -> Result<(lower: Slot?, upper: Slot?), Rejection> {
        if placement.after == card { return .failure(Rejection(.invalid, "a card cannot be placed after itself")) }
        if placement.after == nil, placement.before == card {
            return .failure(Rejection(.invalid, "a card cannot be placed before itself"))
        }
        let anchorID = placement.after ?? placement.before
        var anchor: Slot?
        if let anchorID {
            guard let found = cards[anchorID], found.column == column, found.id != card else {
                return .failure(notInColumn(anchorID, column))
            }
            anchor = Slot(id: found.id, rank: found.rank, archived: found.archived)
        }
        // The column in order from the per-column index: the neighbours sit next to the anchor (or at the end),
        // the card itself skipped.
        let ordered = currentSlots[column]
        var lower: Slot?
        var upper: Slot?
        if let anchor, placement.after != nil {
            // After the anchor: the first card past it.
            var i = ColumnSlots.position(of: anchor.id, rank: anchor.rank, in: ordered) + 1
            while i < ordered.count, ordered[i].id == card { i += 1 }
            upper = i < ordered.count ? ordered[i] : nil
            lower = anchor
        } else if let anchor {
            // Before the anchor: the last card ahead of it.
            var i = ColumnSlots.position(of: anchor.id, rank: anchor.rank, in: ordered) - 1
            while i >= 0, ordered[i].id == card { i -= 1 }
            lower = i >= 0 ? ordered[i] : nil
            upper = anchor
        } else {
            // At the end: after the last card.
            var i = ordered.count - 1
            while i >= 0, ordered[i].id == card { i -= 1 }
            lower = i >= 0 ? ordered[i] : nil
        }
        return .success((lower, upper))
    }

    private func notInColumn(_ id: CardID, _ column: ColumnID) -> Rejection {
        let named = cards[id].map { "#\($0.number)" } ?? "card \(id)"
        return Rejection(.notFound, "\(named) is not in column \(self.column(column)?.name ?? column.rawValue) (moved meanwhile?)")
    }
}
