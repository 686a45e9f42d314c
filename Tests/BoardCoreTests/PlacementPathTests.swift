import Testing

@testable import BoardCore

/// The one-pass placement (end, `after`, `before`) against the sorted path it short-cuts, on random columns:
/// duplicate ranks (ties broken by id), archived cards, ranks so close that only a re-key makes room, anchors in
/// another column, and the card itself as anchor.
@Suite struct PlacementPathTests {
    /// A small deterministic generator (SplitMix64), so a failure replays.
    struct Mix {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
    }

    func board(_ random: inout Mix) -> Board {
        var board = Board(id: "b", name: "B", owner: "o")
        let spaced = Rank.evenlySpaced(count: 6)
        var crowded = [spaced[0]]
        while let last = crowded.last, let next = Rank.between(spaced[0], last), next.rawValue.utf8.count <= Rank.rekeyThreshold + 2 {
            crowded.append(next)
        }
        let ranks = spaced + crowded
        for n in 0..<(1 + random.next(12)) {
            let column: ColumnID = random.next(3) == 0 ? "doing" : "todo"
            let rank = ranks[random.next(ranks.count)]
            let card = Card(
                id: CardID("c\(n)"), number: n + 1, column: column, rank: rank, title: "t", archived: random.next(5) == 0,
                createdBy: "o", createdAt: Timestamp(milliseconds: 0))
            board.cards[card.id] = card
        }
        return board
    }

    @Test func onePassAndSortedPathsAgree() {
        var random = Mix(state: 42)
        var compared = 0
        for _ in 0..<3_000 {
            let board = board(&random)
            let ids = Array(board.cards.keys) + ["missing"]
            let card = random.next(4) == 0 ? CardID("new") : ids[random.next(ids.count)]
            let anchor = ids[random.next(ids.count)]
            let placement: Placement
            switch random.next(4) {
            case 0: placement = Placement()
            case 1: placement = Placement(after: anchor)
            case 2: placement = Placement(before: anchor)
            default: placement = Placement(after: anchor, before: ids[random.next(ids.count)])
            }
            let column: ColumnID = random.next(2) == 0 ? "todo" : "doing"
            let fast = board.resolve(placement, in: column, for: card)
            let sorted = board.resolveSorted(placement, in: column, for: card)
            switch (fast, sorted) {
            case (.success(let a), .success(let b)): #expect(a == b, "\(placement) of \(card) in \(column)")
            case (.failure(let a), .failure(let b)): #expect(a.code == b.code && a.message == b.message)
            default: Issue.record("\(placement) of \(card) in \(column): \(fast) vs \(sorted)")
            }
            compared += 1
        }
        #expect(compared == 3_000)
    }
}
