import BoardCore
import Testing

@testable import CorkApp

@Suite struct CardReferenceTests {
    let board = TestBoard.standard().board

    @Test func parsesEveryForm() throws {
        #expect(try CardReference(parsing: "#12") == .number(12))
        #expect(try CardReference(parsing: "  12 ") == .bare("12"))
        #expect(try CardReference(parsing: "ref:EXT-1") == .ref("EXT-1"))
        #expect(try CardReference(parsing: "id:c3") == .id("c3"))
        #expect(try CardReference(parsing: "c3") == .bare("c3"))
        #expect(try CardReference(parsing: "ref:EXT-1").description == "ref:EXT-1")
    }

    @Test(arguments: ["", "  ", "#", "#abc", "#-1", "#0", "#+3", "ref:", "id:", "id:has space"])
    func rejectsMalformedText(_ text: String) {
        #expect(resolutionError { try CardReference(parsing: text) }?.code == .invalid)
    }

    @Test func resolvesNumberBareNumberRefAndID() throws {
        #expect(try CardReference.resolve("#3", in: board).id == "c3")
        #expect(try CardReference.resolve("3", in: board).id == "c3")
        #expect(try CardReference.resolve("ref:GH-12", in: board).id == "c3")
        #expect(try CardReference.resolve("GH-12", in: board).id == "c3")
        #expect(try CardReference.resolve("c1", in: board).id == "c1")
        #expect(try CardReference.resolve("id:c2", in: board).id == "c2")
    }

    @Test func notFoundMessagesNameTheBoard() {
        #expect(resolutionError { try CardReference.resolve("#99", in: board) }
            == ResolutionError(.notFound, "no card #99 on board main"))
        #expect(resolutionError { try CardReference.resolve("99", in: board) }
            == ResolutionError(.notFound, "no card #99 on board main"))
        #expect(resolutionError { try CardReference.resolve("ref:JIRA-7", in: board) }
            == ResolutionError(.notFound, "no card with ref JIRA-7 on board main"))
        #expect(resolutionError { try CardReference.resolve("id:zz", in: board) }
            == ResolutionError(.notFound, "no card zz on board main"))
        #expect(resolutionError { try CardReference.resolve("zz", in: board) }
            == ResolutionError(.notFound, "no card zz on board main (by id or ref)"))
    }

    @Test func purgedCardIsGone() throws {
        var t = TestBoard.standard()
        t.apply(.purgeCard(card: "c2"))
        #expect(resolutionError { try CardReference.resolve("c2", in: t.board) }?.code == .gone)
        #expect(resolutionError { try CardReference.resolve("id:c2", in: t.board) }
            == ResolutionError(.gone, "card c2 was purged from board main"))
    }

    @Test func bareWordMatchingTwoCardsIsAmbiguous() throws {
        var t = TestBoard.standard()
        // Card id "1" is card #4; "1" is also the number of card c1.
        t.apply(.addCard(AddCard(card: "1", title: "Numbered id")))
        let error = resolutionError { try CardReference.resolve("1", in: t.board) }
        #expect(error?.code == .ambiguous)
        #expect(error?.message == "\"1\" could be #1 (#1 \"Login bug\") or id:1 (#4 \"Numbered id\"); write #1 or id:1")
        #expect(try CardReference.resolve("#1", in: t.board).id == "c1")
        #expect(try CardReference.resolve("id:1", in: t.board).id == "1")
    }

    @Test func bareWordMatchingOneCardTwoWaysIsNotAmbiguous() throws {
        var t = TestBoard.standard()
        t.apply(.addCard(AddCard(card: "4", title: "Four")))
        #expect(try CardReference.resolve("4", in: t.board).id == "4")
    }
}

@Suite struct ColumnLabelMemberReferenceTests {
    let board = TestBoard.standard().board

    @Test func columnsByIDOrNameIgnoringCase() throws {
        #expect(try ColumnReference.resolve("doing", in: board).name == "DOING")
        #expect(try ColumnReference.resolve("DoNe", in: board).id == "done")
        #expect(try ColumnReference.resolve(" todo ", in: board).id == "todo")
    }

    @Test func unknownColumnListsTheColumns() {
        #expect(resolutionError { try ColumnReference.resolve("doin", in: board) }
            == ResolutionError(.notFound, "no column \"doin\"; columns are TODO, DOING, DONE"))
        #expect(resolutionError { try ColumnReference.resolve("", in: board) }?.code == .invalid)
    }

    @Test func columnNameAndOtherColumnsIDIsAmbiguousButExactIDWins() throws {
        var t = TestBoard.standard()
        t.apply(.renameColumn(column: "done", name: "Shipped"))
        t.apply(.addColumn(column: "review", name: "Done", index: nil))
        // "DONE": the name of column review, the id of column done (ignoring case).
        let error = resolutionError { try ColumnReference.resolve("DONE", in: t.board) }
        #expect(error?.code == .ambiguous)
        #expect(error?.message == "column \"DONE\" could be Done (id review) or Shipped (id done); write the exact id")
        #expect(try ColumnReference.resolve("done", in: t.board).id == "done")
    }

    @Test func labelsByIDOrName() throws {
        #expect(try LabelReference.resolve("BUG", in: board).id == "bug")
        #expect(try LabelReference.resolve("docs", in: board).name == "Docs")
        #expect(resolutionError { try LabelReference.resolve("perf", in: board) }
            == ResolutionError(.notFound, "no label \"perf\" on board main; labels are bug, Docs"))
        // A board without any: said as such, not "labels are none".
        var bare = board
        bare.labels = []
        #expect(resolutionError { try LabelReference.resolve("perf", in: bare) }
            == ResolutionError(.notFound, "no label \"perf\" on board main; there are no labels"))
    }

    @Test func membersByIDWithOrWithoutAtOrByDisplayName() throws {
        #expect(try MemberReference.resolve("bob", in: board).id == "bob")
        #expect(try MemberReference.resolve("@bob", in: board).id == "bob")
        #expect(try MemberReference.resolve("BOB", in: board).id == "bob")
        #expect(try MemberReference.resolve("bob b.", in: board).id == "bob")
        #expect(resolutionError { try MemberReference.resolve("dave", in: board) }
            == ResolutionError(.notFound, "dave is not a member of board main; members are alice, bob, carol, ci-bot"))
    }

    @Test func ambiguousDisplayName() {
        var t = TestBoard.standard()
        t.apply(.setMember(user: "bob2", role: .editor, name: "Bob B."))
        #expect(resolutionError { try MemberReference.resolve("Bob B.", in: t.board) }?.code == .ambiguous)
    }

    @Test func longListsAreCut() {
        let names = (1...12).map { "c\($0)" }
        #expect(ResolutionError.list(names) == "c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, …")
        #expect(ResolutionError.list([]) == "none")
    }
}

/// The resolution error `body` throws, or nil (with an issue recorded) when it succeeds.
func resolutionError<T>(
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> T
) -> ResolutionError? {
    do {
        let value = try body()
        Issue.record("expected a resolution error, got \(value)", sourceLocation: sourceLocation)
        return nil
    } catch let error as ResolutionError {
        return error
    } catch {
        Issue.record("expected a resolution error, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
