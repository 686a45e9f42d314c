import Foundation
import PropertyBased
import Testing

@testable import BoardCore

/// Properties over random op sequences on the fixture board.
@Suite struct InvariantTests {
    @Test func theFixtureBoardSatisfiesTheInvariants() {
        #expect(invariantViolations(Fixtures.board) == [])
    }

    @Test func theInvariantCheckCatchesBrokenBoards() {
        var sameRank = Fixtures.board
        sameRank.cards["c3"]!.rank = Rank("V")!
        #expect(invariantViolations(sameRank).contains { $0.hasPrefix("ranks not unique") })
        var danglingLabel = Fixtures.board
        danglingLabel.labels.removeAll { $0.id == "bug" }
        #expect(invariantViolations(danglingLabel).contains { $0.contains("missing label") })
        var danglingUser = Fixtures.board
        danglingUser.members["bob"] = nil
        #expect(invariantViolations(danglingUser).contains { $0.contains("non-member") })
        var danglingMilestone = Fixtures.board
        danglingMilestone.milestones = []
        #expect(invariantViolations(danglingMilestone).contains { $0.contains("missing milestone") })
        var twiceNumbered = Fixtures.board
        twiceNumbered.cards["c2"]!.number = 1
        #expect(invariantViolations(twiceNumbered).contains { $0.contains("used twice") })
        var future = Fixtures.board
        future.nextCardNumber = 6
        #expect(invariantViolations(future).contains { $0.contains("has number 6") })
        var sameRef = Fixtures.board
        sameRef.cards["c2"]!.ref = "JIRA-1"
        #expect(invariantViolations(sameRef).contains { $0.contains("ref JIRA-1") })
        var lostColumn = Fixtures.board
        lostColumn.columns.removeAll { $0.id == "done" }
        #expect(invariantViolations(lostColumn).contains { $0.contains("missing column") })
    }

    @Test func randomOpSequencesKeepTheInvariants() async {
        await propertyCheck(count: 200, input: OpTemplate.sequence) { templates in
            let result = runTemplates(templates, on: Fixtures.board)
            #expect(result.board.seq == Fixtures.board.seq + UInt64(result.accepted.count),
                    "seq grows by exactly one per accepted change")
        }
    }

    @Test func randomOpSequencesFromAnEmptyBoardKeepTheInvariants() async {
        var empty = Board(id: "b", name: "B", owner: "alice")
        empty.members["bob"] = Member(id: "bob", role: .editor)
        empty.members["ci"] = Member(id: "ci", role: .bot)
        empty.members["vera"] = Member(id: "vera", role: .viewer)
        let start = empty
        await propertyCheck(count: 150, input: OpTemplate.sequence) { templates in
            let result = runTemplates(templates, on: start)
            #expect(result.board.seq == UInt64(result.accepted.count))
        }
    }

    @Test func replayingTheAcceptedOpsGivesTheSameBoard() async {
        // The replica's dictionaries are laid out differently (other capacity, other insertion order).
        var replica = Fixtures.board
        var cards: [CardID: Card] = [:]
        cards.reserveCapacity(1024)
        for (id, card) in Fixtures.board.cards.sorted(by: { $0.key > $1.key }) { cards[id] = card }
        replica.cards = cards
        #expect(replica == Fixtures.board)
        let start = replica
        await propertyCheck(count: 150, input: OpTemplate.sequence) { templates in
            let result = runTemplates(templates, on: Fixtures.board)
            let replayed = replaySteps(result.accepted, on: start)
            #expect(replayed == result.board)
        }
    }

    @Test func randomBoardsRoundTripThroughJSON() async throws {
        await propertyCheck(count: 100, input: OpTemplate.sequence) { templates in
            let board = runTemplates(templates, on: Fixtures.board).board
            let data = try JSONEncoder().encode(board)
            #expect(try JSONDecoder().decode(Board.self, from: data) == board)
        }
    }

    @Test func randomOpsRoundTripThroughJSON() async throws {
        await propertyCheck(count: 300, input: OpTemplate.generator.filter { $0.op != nil }) { template in
            let op = try #require(template.op)
            let data = try JSONEncoder().encode(op)
            #expect(try JSONDecoder().decode(Op.self, from: data) == op)
        }
    }

    /// Undo right after an op (by its actor) restores the fields the op changed; undoing a card add archives it.
    @Test func undoRightAfterAnOpRestoresTheFields() async throws {
        var tried = 0
        await propertyCheck(count: 300, input: OpTemplate.sequence, OpTemplate.generator.filter { $0.op != nil }) {
            prefix, last in
            let board = runTemplates(prefix, on: Fixtures.board).board
            let op = try #require(last.op)
            guard case .success(let change) = board.applying(op, context: ctx(last.actor, on: board)),
                !change.isNoop, let inverse = change.inverse
            else { return }
            tried += 1
            let undone = change.board.applyingUndo(
                of: change.activity, inverse: inverse, context: ctx(last.actor, on: change.board))
            switch undone {
            case .failure(let r):
                // Undo is an op: it still respects hard WIP limits that were lowered below a column's count.
                let column: ColumnID? =
                    switch op {
                    case .archiveCard(let id): board.cards[id]?.column
                    case .moveCard(let id, _, _, _): board.cards[id]?.column
                    default: nil
                    }
                let overfull = column.flatMap { c in board.column(c)?.wip.map { $0.hard && board.count(in: c) > $0.limit } }
                #expect(r.code == .wipLimit && overfull == true, "undo of \(op.kind) refused: \(r)")
            case .success(let u):
                let subject = Subject(of: op)
                if case .addCard(let add) = op {
                    var expected = change.board.fields(of: subject)
                    expected["archived"] = .bool(true)
                    #expect(u.board.fields(of: subject) == expected)
                    #expect(u.board.cards[add.card]?.archived == true)
                } else {
                    #expect(u.board.fields(of: subject) == board.fields(of: subject), "undo of \(op) by \(last.actor)")
                }
                #expect(u.activity.undoOf == change.activity.seq)
                #expect(u.board.seq == board.seq + 2)
                #expect(invariantViolations(u.board) == [])
            }
        }
        #expect(tried > 30, "enough random ops were undoable to mean something")
    }

    @Test func theGeneratorReachesEveryOpKind() {
        var kinds: Set<String> = []
        for kind in 0..<OpTemplate.kindCount {
            for n in 0..<12 {
                if let op = OpTemplate(kind: kind, a: n, b: n * 7, c: n * 13, who: 0).op { kinds.insert(op.kind) }
            }
        }
        #expect(kinds == Set(Op.allKinds))
    }
}
