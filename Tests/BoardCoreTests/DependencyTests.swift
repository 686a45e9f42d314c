import Foundation
import Testing

@testable import BoardCore

/// Dependencies: `card.block`, `card.unblock`, `column.in_progress`, and a blocked card kept out of an in-progress
/// column unless an editor forces it with a reason.
@Suite struct DependencyTests {
    /// The fixture with #2 "Design settings" (todo) blocked by #1 "Fix login" (todo, open).
    static var blocked: Board {
        var board = Fixtures.board
        mustApply(.blockCard(card: "c2", by: "c1"), to: &board)
        return board
    }

    @Test func blockRecordsTheBlockerAndItsInverseUnblocks() throws {
        let change = try accepted(.blockCard(card: "c2", by: "c1"), on: Fixtures.board, as: "bob")
        #expect(change.board.cards["c2"]?.blockedBy == ["c1"])
        #expect(change.activity.kind == "card.block")
        #expect(change.activity.changes["blocked_by"] == fc(.null, .array([.string("c1")])))
        #expect(change.inverse == .unblockCard(card: "c2", by: "c1"))
        #expect(change.board.blockers(of: change.board.cards["c2"]!).map(\.id) == ["c1"])
        #expect(change.board.blocked(by: "c1").map(\.id) == ["c2"])
    }

    @Test func blockingTwiceIsANoopAndUnblockingRemoves() throws {
        expectNoop(.blockCard(card: "c2", by: "c1"), on: Self.blocked)
        let change = try accepted(.unblockCard(card: "c2", by: "c1"), on: Self.blocked)
        #expect(change.board.cards["c2"]?.blockedBy == [])
        #expect(change.activity.changes["blocked_by"] == fc(.array([.string("c1")]), .null))
        #expect(change.inverse == .blockCard(card: "c2", by: "c1"))
        expectNoop(.unblockCard(card: "c2", by: "c3"), on: Self.blocked)
    }

    @Test func cyclesAreRefusedWithTheChain() throws {
        var board = Self.blocked
        mustApply(.blockCard(card: "c1", by: "c3"), to: &board)
        // c2 waits for c1, which waits for c3: c3 waiting for c2 would close the loop.
        let refusal = try #require(rejection(of: .blockCard(card: "c3", by: "c2"), on: board))
        #expect(refusal.code == .cycle)
        #expect(refusal.message.contains("#2 → #1 → #3"), "\(refusal.message)")
        #expect(rejectionCode(of: .blockCard(card: "c2", by: "c2"), on: board) == .cycle)
    }

    @Test func blockNeedsBothCards() {
        #expect(rejectionCode(of: .blockCard(card: "c2", by: "nope"), on: Fixtures.board) == .notFound)
        #expect(rejectionCode(of: .blockCard(card: "nope", by: "c1"), on: Fixtures.board) == .notFound)
        #expect(rejectionCode(of: .blockCard(card: "c2", by: "c1"), on: Fixtures.board, as: "vera") == .forbidden)
    }

    @Test func aBlockedCardCannotEnterDoingAndTheRefusalNamesTheBlockers() throws {
        let refusal = try #require(rejection(of: .moveCard(card: "c2", column: "doing", placement: .bottom), on: Self.blocked, as: "bob"))
        #expect(refusal.code == .blocked)
        #expect(refusal.message.contains("#1 Fix login"), "\(refusal.message)")
        #expect(refusal.current == .array([.string("c1")]))
    }

    @Test func otherColumnsAndReordersAreNotInProgress() throws {
        // Into DONE (not in progress) is fine, and so is moving within TODO.
        _ = try accepted(.moveCard(card: "c2", column: "done", placement: .bottom), on: Self.blocked, as: "bob")
        _ = try accepted(.moveCard(card: "c2", column: "todo", placement: .top), on: Self.blocked, as: "bob")
    }

    @Test func anEditorMayForceItWithAReasonThatTheActivityKeeps() throws {
        let change = try accepted(
            .moveCard(card: "c2", column: "doing", placement: .bottom, force: "design can start on a mock"), on: Self.blocked,
            as: "bob")
        #expect(change.board.cards["c2"]?.column == "doing")
        #expect(change.activity.text == "design can start on a mock")
        #expect(change.inverse == .moveCard(card: "c2", column: "todo", placement: Placement(rank: Rank("V")!)))
        // A bot may not, and a reason must say something.
        #expect(
            rejectionCode(of: .moveCard(card: "c2", column: "doing", placement: .bottom, force: "because"), on: Self.blocked, as: "ci")
                == .forbidden)
        #expect(
            rejectionCode(of: .moveCard(card: "c2", column: "doing", placement: .bottom, force: "  "), on: Self.blocked, as: "bob")
                == .invalid)
    }

    @Test func aForcedMoveNamesTheBlockersItWentPast() throws {
        var board = Self.blocked
        let change = try #require(
            mustApply(.moveCard(card: "c2", column: "doing", placement: .bottom, force: "mock first"), to: &board, as: "bob"))
        #expect(change.activity.names?.cards == ["c1": "#1 Fix login"])
    }

    @Test func aBlockerThatIsDoneClosedOrArchivedNoLongerBlocks() throws {
        for op: Op in [.moveCard(card: "c1", column: "done", placement: .bottom), .closeCard(card: "c1"), .archiveCard(card: "c1")] {
            var board = Self.blocked
            mustApply(op, to: &board)
            #expect(!board.isBlocked(board.cards["c2"]!), "after \(op.kind)")
            _ = try accepted(.moveCard(card: "c2", column: "doing", placement: .bottom), on: board, as: "bob")
        }
        var purged = Self.blocked
        mustApply(.purgeCard(card: "c1"), to: &purged)
        #expect(!purged.isBlocked(purged.cards["c2"]!))
    }

    @Test func columnsCanBeMarkedInProgressAndTheDefaultLeavesNoTrace() throws {
        var board = Self.blocked
        _ = try accepted(.moveCard(card: "c2", column: "done", placement: .bottom), on: board, as: "bob")
        let marked = try #require(mustApply(.setInProgress(column: "done", on: true), to: &board))
        #expect(marked.activity.changes["in_progress"] == fc(.null, .bool(true)))
        #expect(rejectionCode(of: .moveCard(card: "c2", column: "done", placement: .bottom), on: board, as: "bob") == .blocked)
        let unmarked = try #require(mustApply(.setInProgress(column: "doing", on: false), to: &board))
        #expect(unmarked.inverse == .setInProgress(column: "doing", on: true))
        _ = try accepted(.moveCard(card: "c2", column: "doing", placement: .bottom), on: board, as: "bob")
        mustApply(.setInProgress(column: "doing", on: true), to: &board)
        #expect(board.column("doing")?.inProgress == nil, "back to the default is stored as the default")
        #expect(rejectionCode(of: .setInProgress(column: "doing", on: false), on: board, as: "ci") == .forbidden)
    }

    @Test func theHashCoversDependenciesOnlyWhenThereAreSome() throws {
        let plain = Fixtures.board
        #expect(!plain.canonicalText().contains("blocked_by"))
        #expect(!plain.canonicalText().contains("in_progress"))
        let blocked = Self.blocked
        #expect(blocked.canonicalText().contains(#""ref":null,"blocked_by":["c1"],"created_by":"bob""#))
        #expect(blocked.protocolHash != plain.protocolHash)
        var marked = plain
        mustApply(.setInProgress(column: "done", on: true), to: &marked)
        #expect(marked.canonicalText().contains(#""id":"done","name":"DONE","wip":null,"in_progress":true}"#))
    }

    @Test func cardsDecodeWithoutBlockedByAndEncodeItOnlyWhenSet() throws {
        let card = Fixtures.board.cards["c1"]!
        let plain = try JSONEncoder().encode(card)
        #expect(!String(decoding: plain, as: UTF8.self).contains("blocked_by"))
        #expect(try JSONDecoder().decode(Card.self, from: plain) == card)
        var blocked = card
        blocked.blockedBy = ["c2", "c3"]
        let text = try JSONEncoder().encode(blocked)
        #expect(String(decoding: text, as: UTF8.self).contains(#""blocked_by":["c2","c3"]"#))
        #expect(try JSONDecoder().decode(Card.self, from: text) == blocked)
    }

    @Test func queriesFindBlockedCardsAndBlockers() throws {
        let board = Self.blocked
        let context = QueryContext(today: Day(year: 2026, month: 1, day: 1)!, me: "alice")
        #expect(try Query.parse("is:blocked").filter(board, context: context).map(\.id) == ["c2"])
        #expect(try Query.parse("blocks:#2").filter(board, context: context).map(\.id) == ["c1"])
        #expect(try Query.parse("blocks:c2").filter(board, context: context).map(\.id) == ["c1"])
        #expect(try Query.parse("-is:blocked is:open").filter(board, context: context).map(\.id).contains("c2") == false)
        #expect(try Query.parse("is:blocked").description == "is:blocked")
        #expect(try Query.parse("blocks:#2").description == "blocks:\"#2\"")
    }
}
