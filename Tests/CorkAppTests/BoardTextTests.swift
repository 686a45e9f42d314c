import BoardCore
import Testing

@testable import CorkApp

/// `cork show` and `cork search` output.
@Suite struct BoardTextTests {
    static let today = Day("2026-02-01")!

    func board() -> TestBoard {
        var t = TestBoard.standard()
        t.apply(.setWIPLimit(column: "doing", limit: WIPLimit(limit: 1, hard: false)))
        t.apply(.editCard(EditCard(card: "c1", description: "Steps:\n1. log in\n2. wait", due: .set(Day("2026-01-20")!))))
        t.apply(.assign(card: "c1", user: "bob"))
        t.apply(.addCard(AddCard(card: "c4", column: "doing", title: "Over the limit")))
        t.apply(.addChecklistItem(card: "c1", item: "i1", text: "reproduce", done: true, index: nil))
        t.apply(.addChecklistItem(card: "c1", item: "i2", text: "fix", done: false, index: nil))
        t.apply(.addComment(card: "c1", comment: "m1", text: "seen it too"), as: "bob")
        t.apply(.closeCard(card: "c3"))
        // What the reducer refuses may still arrive from an older server or a file: it must not reach the terminal.
        t.board.cards["c1"]!.description += "\u{1B}[31m"
        t.board.cards["c4"]!.title = "Over\nthe limit"
        return t
    }

    @Test func theBoardListsColumnsWithCountsAndCards() {
        let text = BoardText.board(board().board, today: Self.today)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "Main (main) · seq \(board().board.seq)")
        #expect(lines.contains("TODO 2"))
        #expect(lines.contains("  #1 Login bug [bug] due 2026-01-20 OVERDUE @bob"))
        #expect(lines.contains("  #2 Write docs"))
        #expect(lines.contains("DOING 2/1!"))
        #expect(lines.contains("  #3 Ship corkd (closed)"))
        #expect(lines.contains("  #4 Over the limit"), "control characters become spaces")
        #expect(lines.contains("DONE 0"))
        #expect(text.hasSuffix("\n"))
    }

    @Test func aCardShowsEverything() {
        let t = board()
        let text = BoardText.card(t.board.cards["c1"]!, in: t.board, today: Self.today)
        #expect(text.hasPrefix("#1 Login bug\n"))
        for part in [
            "  column: TODO", "  status: open", "  labels: bug", "  due: 2026-01-20 OVERDUE", "  assignees: @bob",
            "  id: c1", "  Steps:", "  1. log in", "Checklist 1/2:", "  [x] reproduce", "  [ ] fix", "Comments (1):",
            "    seen it too",
        ] {
            #expect(text.contains(part + "\n"), "\(part) in\n\(text)")
        }
        #expect(!text.contains("\u{1B}"), "no escape sequences reach the terminal")
        let shipped = BoardText.card(t.board.cards["c3"]!, in: t.board, today: Self.today)
        #expect(shipped.contains("  status: closed\n") && shipped.contains("  ref: GH-12\n"))
    }

    @Test func searchResultsNameTheirColumn() {
        let t = board()
        #expect(BoardText.results([], in: t.board, today: Self.today) == "no cards match\n")
        #expect(BoardText.results([t.board.cards["c2"]!], in: t.board, today: Self.today) == "#2 Write docs — TODO\n")
    }

    @Test func boardsAreAligned() {
        let text = BoardText.boards([("main", "Main", "owner", 9), ("release-26", "Release", "viewer", 1204)])
        #expect(text == "main        Main  owner  seq 9\nrelease-26  Release  viewer  seq 1204\n")
        #expect(BoardText.boards([]) == "no boards\n")
    }
}
