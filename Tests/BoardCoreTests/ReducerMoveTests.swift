import Testing

@testable import BoardCore

/// `card.move`: placements (after, before, index, top, bottom, rank), columns, archived neighbours, WIP limits,
/// no-ops, and re-keying when ranks grow long.
///
/// The fixture's todo column is c1 `F`, c2 `V`, c6 `a` (archived), c3 `k`; doing holds c4 `V`.
@Suite struct ReducerMoveTests {
    let board = Fixtures.board

    private func moved(
        _ card: CardID, to column: ColumnID, _ placement: Placement, on board: Board? = nil, as actor: UserID = "alice"
    ) throws -> Change {
        try accepted(.moveCard(card: card, column: column, placement: placement), on: board ?? self.board, as: actor)
    }

    // MARK: Across columns

    @Test func moveToTheBottomOfAnotherColumn() throws {
        let change = try moved("c2", to: "doing", .bottom, as: "bob")
        var expected = try #require(board.cards["c2"])
        expected.column = "doing"
        expected.rank = Rank("W")!
        expected.updatedBy = "bob"
        expected.updatedAt = stamp(11)
        #expect(change.board.cards["c2"] == expected)
        #expect(order(change.board, "doing") == ["c4", "c2"])
        #expect(order(change.board, "todo") == ["c1", "c3"])
        #expect(
            change.activity
                == Activity(
                    seq: 11, at: stamp(11), actor: "bob", kind: "card.move", card: "c2",
                    changes: ["column": fc(.string("todo"), .string("doing")), "rank": fc(.string("V"), .string("W"))]))
        #expect(change.inverse == .moveCard(card: "c2", column: "todo", placement: Placement(rank: Rank("V")!)))
    }

    @Test func moveAfterACard() throws {
        let change = try moved("c4", to: "todo", Placement(after: "c1"))
        #expect(change.board.cards["c4"]?.rank == Rank("N"))
        #expect(order(change.board, "todo") == ["c1", "c4", "c2", "c3"])
        #expect(change.board.count(in: "doing") == 0)
        #expect(change.activity.changes == ["column": fc(.string("doing"), .string("todo")), "rank": fc(.string("V"), .string("N"))])
    }

    @Test func moveBeforeACard() throws {
        let first = try moved("c4", to: "todo", Placement(before: "c1"))
        #expect(order(first.board, "todo") == ["c4", "c1", "c2", "c3"])
        #expect(first.board.cards["c4"]?.rank == Rank("E"))
        // Right before c3 means after the archived c6 that precedes it.
        let beforeC3 = try moved("c4", to: "todo", Placement(before: "c3"))
        #expect(order(beforeC3.board, "todo", includeArchived: true) == ["c1", "c2", "c6", "c4", "c3"])
        #expect(beforeC3.board.cards["c4"]?.rank == Rank("f"))
    }

    @Test func moveAfterAnArchivedCard() throws {
        let change = try moved("c4", to: "todo", Placement(after: "c6"))
        #expect(order(change.board, "todo", includeArchived: true) == ["c1", "c2", "c6", "c4", "c3"])
    }

    @Test func moveBetweenNeighbours() throws {
        let change = try moved("c4", to: "todo", Placement(after: "c1", before: "c2"))
        #expect(order(change.board, "todo") == ["c1", "c4", "c2", "c3"])
        #expect(change.board.cards["c4"]?.rank == Rank("N"))
    }

    @Test func afterWinsWhenAfterAndBeforeAreNoLongerNeighbours() throws {
        let change = try moved("c4", to: "todo", Placement(after: "c1", before: "c3"))
        #expect(order(change.board, "todo") == ["c1", "c4", "c2", "c3"])
        let reversed = try moved("c4", to: "todo", Placement(after: "c3", before: "c1"))
        #expect(order(reversed.board, "todo") == ["c1", "c2", "c3", "c4"])
    }

    /// Protocol.md, "Placement": `after` if present, else `before`, else `index`; the others are ignored.
    @Test func afterThenBeforeThenIndexDecides() throws {
        let afterOverIndex = try moved("c4", to: "todo", Placement(after: "c3", index: 0))
        #expect(order(afterOverIndex.board, "todo") == ["c1", "c2", "c3", "c4"])
        let beforeOverIndex = try moved("c4", to: "todo", Placement(before: "c1", index: 2))
        #expect(order(beforeOverIndex.board, "todo") == ["c4", "c1", "c2", "c3"])
        // With `after` present, a `before` naming the card itself is not even looked at.
        let ignored = try moved("c4", to: "todo", Placement(after: "c1", before: "c4", index: 3))
        #expect(order(ignored.board, "todo") == ["c1", "c4", "c2", "c3"])
        let ignoredOnTheFastPath = try moved("c4", to: "todo", Placement(after: "c1", before: "c4"))
        #expect(order(ignoredOnTheFastPath.board, "todo") == ["c1", "c4", "c2", "c3"])
    }

    @Test(arguments: [
        (0, ["c4", "c1", "c2", "c3"]), (1, ["c1", "c4", "c2", "c3"]), (2, ["c1", "c2", "c4", "c3"]),
        (3, ["c1", "c2", "c3", "c4"]), (99, ["c1", "c2", "c3", "c4"]),
    ] as [(Int, [CardID])])
    func moveToAnIndexCountsUnarchivedCardsOnly(index: Int, expected: [CardID]) throws {
        let change = try moved("c4", to: "todo", Placement(index: index))
        #expect(order(change.board, "todo") == expected)
        #expect(order(change.board, "todo").firstIndex(of: "c4") == min(index, 3))
        #expect(change.board.cards(in: "todo", includeArchived: true).count == 5)
    }

    @Test func topAndBottom() throws {
        let top = try moved("c4", to: "todo", .top)
        #expect(order(top.board, "todo") == ["c4", "c1", "c2", "c3"])
        #expect(top.board.cards["c4"]?.rank == Rank("E"))
        let bottom = try moved("c4", to: "todo", .bottom)
        #expect(order(bottom.board, "todo") == ["c1", "c2", "c3", "c4"])
        #expect(bottom.board.cards["c4"]?.rank == Rank("l"))
    }

    @Test func moveIntoAnEmptyColumnGetsTheMiddleRank() throws {
        var board = board
        mustApply(.addColumn(column: "qa", name: "QA", index: nil), to: &board)
        let change = try moved("c2", to: "qa", Placement(index: 5), on: board)
        #expect(change.board.cards["c2"]?.rank == Rank("V"))
        #expect(order(change.board, "qa") == ["c2"])
    }

    @Test func moveToAFreeRankTakesIt() throws {
        let change = try moved("c4", to: "todo", Placement(rank: Rank("Z")!))
        #expect(change.board.cards["c4"]?.rank == Rank("Z"))
        #expect(order(change.board, "todo", includeArchived: true) == ["c1", "c2", "c4", "c6", "c3"])
    }

    @Test func moveToATakenRankGoesRightAfterItsHolder() throws {
        // c2 holds V and sorts before c4 (ties go by id), so c4 goes between c2 (V) and c6 (a).
        let change = try moved("c4", to: "todo", Placement(rank: Rank("V")!))
        #expect(change.board.cards["c4"]?.rank == Rank("X"))
        #expect(order(change.board, "todo", includeArchived: true) == ["c1", "c2", "c4", "c6", "c3"])
        let ranks = change.board.cards(in: "todo", includeArchived: true).map(\.rank)
        #expect(Set(ranks).count == ranks.count)
    }

    // MARK: Within a column

    @Test func moveDownWithinAColumn() throws {
        let change = try moved("c1", to: "todo", Placement(after: "c3"), as: "ci")
        #expect(order(change.board, "todo") == ["c2", "c3", "c1"])
        #expect(
            change.activity
                == Activity(
                    seq: 11, at: stamp(11), actor: "ci", kind: "card.move", card: "c1",
                    changes: ["rank": fc(.string("F"), .string("l"))]))
        #expect(change.inverse == .moveCard(card: "c1", column: "todo", placement: Placement(rank: Rank("F")!)))
    }

    @Test func moveUpWithinAColumn() throws {
        let change = try moved("c3", to: "todo", .top)
        #expect(order(change.board, "todo") == ["c3", "c1", "c2"])
        #expect(change.board.cards["c3"]?.rank == Rank("E"))
        let byIndex = try moved("c3", to: "todo", Placement(index: 1))
        #expect(order(byIndex.board, "todo") == ["c1", "c3", "c2"])
    }

    @Test func withinAColumnTheWIPLimitDoesNotApply() throws {
        var board = board
        mustApply(.setWIPLimit(column: "todo", limit: WIPLimit(limit: 1, hard: true)), to: &board)
        let change = try moved("c1", to: "todo", .bottom, on: board)
        #expect(order(change.board, "todo") == ["c2", "c3", "c1"])
        #expect(change.activity.warning == nil)
    }

    // MARK: No-ops

    @Test func movingACardToWhereItIsIsANoop() {
        expectNoop(.moveCard(card: "c2", column: "todo", placement: Placement(after: "c1")), on: board)
        expectNoop(.moveCard(card: "c2", column: "todo", placement: Placement(after: "c1", before: "c6")), on: board)
        expectNoop(.moveCard(card: "c1", column: "todo", placement: .top), on: board)
        expectNoop(.moveCard(card: "c1", column: "todo", placement: Placement(before: "c2")), on: board)
        expectNoop(.moveCard(card: "c3", column: "todo", placement: .bottom), on: board)
        expectNoop(.moveCard(card: "c4", column: "doing", placement: .bottom), on: board)
        expectNoop(.moveCard(card: "c4", column: "doing", placement: Placement(index: 7)), on: board)
        expectNoop(.moveCard(card: "c2", column: "todo", placement: Placement(rank: Rank("V")!)), on: board)
    }

    @Test func repeatingAMoveIsANoop() {
        var board = board
        let op = Op.moveCard(card: "c4", column: "todo", placement: Placement(after: "c1"))
        mustApply(op, to: &board)
        expectNoop(op, on: board)
    }

    /// An index counts unarchived cards only, so asking for the index a card already has is "where it already is",
    /// even when archived cards sit between it and its visible neighbours.
    @Test func movingACardToTheIndexItHasIsANoopWithArchivedCardsAround() {
        // Visible todo: c1, c2, c3 (c6 is archived between c2 and c3).
        expectNoop(.moveCard(card: "c2", column: "todo", placement: Placement(index: 1)), on: board)
        expectNoop(.moveCard(card: "c3", column: "todo", placement: Placement(index: 2)), on: board)
    }

    // MARK: WIP limits

    @Test func moveIntoAColumnAtItsHardLimitIsRefused() throws {
        var board = board
        mustApply(.setWIPLimit(column: "doing", limit: WIPLimit(limit: 1, hard: true)), to: &board)
        let r = try #require(rejection(of: .moveCard(card: "c2", column: "doing", placement: .top), on: board))
        #expect(r.code == .wipLimit)
        #expect(r.message.contains("1"))
    }

    @Test func moveIntoAColumnPastItsSoftLimitWarns() throws {
        var board = board
        mustApply(.setWIPLimit(column: "doing", limit: WIPLimit(limit: 1, hard: false)), to: &board)
        let change = try moved("c2", to: "doing", .top, on: board)
        #expect(change.activity.warning == "wip_exceeded")
        #expect(order(change.board, "doing") == ["c2", "c4"])
        #expect(change.board.count(in: "doing") == 2)
    }

    // MARK: Rejections

    @Test func moveRejections() {
        func code(_ card: CardID, _ column: ColumnID, _ p: Placement, as actor: UserID = "alice") -> Rejection.Code? {
            rejectionCode(of: .moveCard(card: card, column: column, placement: p), on: board, as: actor)
        }
        #expect(code("c6", "doing", .bottom) == .invalid, "archived cards are restored before they move")
        #expect(code("c2", "todo", Placement(after: "c2")) == .invalid, "after itself")
        #expect(code("c2", "todo", Placement(before: "c2")) == .invalid, "before itself")
        #expect(code("c2", "todo", Placement(index: -1)) == .invalid, "negative index")
        #expect(code("c2", "todo", Placement(after: "zz")) == .notFound)
        #expect(code("c2", "todo", Placement(before: "c4")) == .notFound, "c4 is in another column")
        #expect(code("c2", "nope", .bottom) == .notFound)
        #expect(code("zz", "todo", .bottom) == .notFound)
        #expect(code("c2", "doing", .bottom, as: "vera") == .forbidden)
    }

    /// A neighbour another person moved away meanwhile is named by its number, as people know it, not by its id.
    @Test func aNeighbourNotInTheColumnIsNamedByItsNumber() throws {
        let moved = try #require(rejection(of: .moveCard(card: "c2", column: "todo", placement: Placement(before: "c4")), on: board))
        let number = try #require(board.cards["c4"]?.number)
        #expect(moved.message == "#\(number) is not in column TODO (moved meanwhile?)", "\(moved.message)")
        let unknown = try #require(rejection(of: .moveCard(card: "c2", column: "todo", placement: Placement(after: "zz")), on: board))
        #expect(unknown.message.hasPrefix("card zz is not in column"), "\(unknown.message)")
    }

    // MARK: Re-keying

    /// A board whose doing column holds `n` cards d1…dn and whose todo column holds `lo` (rank 1) and `hi` (rank 2).
    private func crowdedBoard(_ n: Int, reversed: Bool = false) -> Board {
        var board = Board(id: "r", name: "R", owner: "alice")
        var cards = zip(1...n, Rank.evenlySpaced(count: n)).map { i, rank in
            Fixtures.card(CardID("d\(i)"), number: i, column: "doing", rank: rank.rawValue)
        }
        cards.append(Fixtures.card("lo", number: n + 1, column: "todo", rank: "1"))
        cards.append(Fixtures.card("hi", number: n + 2, column: "todo", rank: "2"))
        if reversed { cards.reverse() }
        for card in cards { board.cards[card.id] = card }
        board.nextCardNumber = n + 3
        return board
    }

    /// Checks ranks are unique, valid and short in every column.
    private func expectTidyRanks(_ board: Board, sourceLocation: SourceLocation = #_sourceLocation) {
        for column in board.columns {
            let ranks = board.cards(in: column.id, includeArchived: true).map(\.rank)
            #expect(Set(ranks).count == ranks.count, "ranks unique in \(column.id)", sourceLocation: sourceLocation)
            for rank in ranks {
                #expect(rank.rawValue.utf8.count <= Rank.rekeyThreshold, "\(rank) is short", sourceLocation: sourceLocation)
                #expect(Rank(rank.rawValue) == rank, "\(rank) is valid", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func twoHundredMovesToTheTopKeepRanksShortAndUnique() {
        var board = crowdedBoard(200)
        var expected: [CardID] = ["lo", "hi"]
        for i in 1...200 {
            let id = CardID("d\(i)")
            mustApply(.moveCard(card: id, column: "todo", placement: .top), to: &board)
            expected.insert(id, at: 0)
            #expect(order(board, "todo") == expected)
            expectTidyRanks(board)
        }
        #expect(board.seq == 200)
        #expect(board.count(in: "doing") == 0)
    }

    @Test func twoHundredMovesBetweenTheSameTwoCardsReKey() {
        var board = crowdedBoard(200)
        var expected: [CardID] = ["lo", "hi"]
        var rekeys = 0
        for i in 1...200 {
            let id = CardID("d\(i)")
            let before = board
            mustApply(.moveCard(card: id, column: "todo", placement: Placement(after: "lo", before: "hi")), to: &board)
            expected.insert(id, at: 1)
            #expect(order(board, "todo") == expected)
            expectTidyRanks(board)
            if before.cards["lo"]?.rank != board.cards["lo"]?.rank { rekeys += 1 }
        }
        #expect(rekeys > 0, "the gap after lo halves every move, so the column must have been re-keyed")
        #expect(board.seq == 200)
    }

    @Test func twoHundredMovesIntoTheSameShrinkingGapReKey() {
        var board = crowdedBoard(200)
        var expected: [CardID] = ["lo", "hi"]
        var previous: CardID = "lo"
        var rekeys = 0
        for i in 1...200 {
            let id = CardID("d\(i)")
            let hiRank = board.cards["hi"]?.rank
            mustApply(.moveCard(card: id, column: "todo", placement: Placement(after: previous, before: "hi")), to: &board)
            expected.insert(id, at: expected.count - 1)
            #expect(order(board, "todo") == expected)
            expectTidyRanks(board)
            if hiRank != board.cards["hi"]?.rank { rekeys += 1 }
            previous = id
        }
        #expect(rekeys > 0)
    }

    @Test func twoHundredAddsAfterTheSameCardReKey() {
        var board = crowdedBoard(1)
        var expected: [CardID] = ["lo", "hi"]
        for i in 1...200 {
            let id = CardID("n\(i)")
            mustApply(.addCard(AddCard(card: id, column: "todo", placement: Placement(after: "lo"), title: "N\(i)")), to: &board)
            expected.insert(id, at: 1)
            #expect(order(board, "todo") == expected)
            expectTidyRanks(board)
        }
        #expect(board.cards.count == 203)
    }

    @Test func reKeyingIsDeterministic() throws {
        // The same ops on the same board built in another order give equal boards, re-keys included.
        var a = crowdedBoard(150)
        var b = crowdedBoard(150, reversed: true)
        #expect(a == b)
        for i in 1...150 {
            let op = Op.moveCard(card: CardID("d\(i)"), column: "todo", placement: Placement(after: "lo", before: "hi"))
            let context = ctx("alice", role: .owner, seq: UInt64(i))
            let ra = a.apply(op, context: context)
            let rb = b.apply(op, context: context)
            #expect(try ra.get().activity == rb.get().activity)
        }
        #expect(a == b)
        #expect(a.cards["lo"]?.rank != Rank("1"), "the column was re-keyed")
    }

    /// A re-key can hand the moved card back its old rank: the column's order still changed (and the other cards'
    /// ranks with it), so the move is not a no-op and must take a seq.
    @Test func aMoveThatReKeysIsNeverANoop() throws {
        var board = Board(id: "r", name: "R", owner: "alice")
        for card in [
            Fixtures.card("a", number: 1, column: "todo", rank: "U"),
            Fixtures.card("b", number: 2, column: "todo", rank: "U" + String(repeating: "0", count: 22) + "1"),  // 24 characters
            Fixtures.card("x", number: 3, column: "todo", rank: "V"),
        ] { board.cards[card.id] = card }
        board.seq = 5
        #expect(order(board, "todo") == ["a", "b", "x"])
        // No rank of at most 24 characters fits between a and b, so the column is re-keyed to F, V, k.
        let op = Op.moveCard(card: "x", column: "todo", placement: Placement(after: "a"))
        let change = try board.applying(op, context: ctx(seq: 6)).get()
        #expect(order(change.board, "todo") == ["a", "x", "b"])
        #expect(change.board.cards["a"]?.rank == Rank("F"))
        #expect(change.board.cards["x"]?.rank == Rank("V"))
        let isNoop = change.isNoop
        #expect(!isNoop, "the order changed, so this is no no-op")
        #expect(change.board.seq == 6)
        #expect(change.inverse != nil)
        var mutated = board
        let result = try mutated.apply(op, context: ctx(seq: 6)).get()
        let mutatedIsNoop = result.isNoop
        #expect(!mutatedIsNoop)
        #expect(mutated.seq == 6)
    }

    /// Undoing a move that re-keyed the column must put the card back between its old neighbours, although their
    /// ranks changed in the re-key.
    @Test func undoOfAMoveThatReKeyedRestoresTheOrder() throws {
        var board = Board(id: "r", name: "R", owner: "alice")
        for card in [
            Fixtures.card("a", number: 1, column: "todo", rank: "U"),
            Fixtures.card("b", number: 2, column: "todo", rank: "U" + String(repeating: "0", count: 22) + "1"),
            Fixtures.card("x", number: 3, column: "todo", rank: "W"),
        ] { board.cards[card.id] = card }
        let move = Op.moveCard(card: "x", column: "todo", placement: Placement(after: "a"))
        let change = try board.applying(move, context: ctx(seq: 1)).get()
        #expect(order(change.board, "todo") == ["a", "x", "b"])
        #expect(change.board.cards["b"]?.rank == Rank("k"), "the column was re-keyed to F, V, k")
        let undone = try change.board.applyingUndo(of: change.activity, inverse: change.inverse, context: ctx(seq: 2)).get()
        #expect(order(undone.board, "todo") == ["a", "b", "x"], "x goes back below b")
    }
}
