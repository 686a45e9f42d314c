import BoardClient
import Foundation
import BoardCore
import CorkApp
import TerminalUI
import Testing

/// Card dependencies as the full-screen client shows them: a `⊘` before a blocked card's number (in red, and in text
/// so it shows without colour), the card detail's "Blocked by" / "Blocks" lines, and the carried card's warning over
/// an in-progress column.
@Suite struct TUIDependencyTests {
    /// ``TUIModelTests/testBoard()`` without DOING's WIP limit, plus #4 "Deploy" (todo) waiting for #1 "Fix login",
    /// #2 "Write docs" (closed) and #3 "Ship it" (doing), and #5 "Announce" (todo) waiting for #4.
    static func testBoard() -> TestBoard {
        var t = TUIModelTests.testBoard()
        t.apply(.setWIPLimit(column: "doing", limit: nil))
        t.apply(.addCard(AddCard(card: "k4", column: "todo", title: "Deploy")))
        t.apply(.addCard(AddCard(card: "k5", column: "todo", title: "Announce")))
        t.apply(.closeCard(card: "k2"))
        t.apply(.blockCard(card: "k4", by: "k1"))
        t.apply(.blockCard(card: "k4", by: "k2"))
        t.apply(.blockCard(card: "k4", by: "k3"))
        t.apply(.blockCard(card: "k5", by: "k4"))
        return t
    }

    /// The row of the board that shows card `number`'s title line.
    static func cardRow(_ number: Int, in lines: [String], sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        let row = lines.first { $0.contains("#\(number) ") }
        #expect(row != nil, "no row shows #\(number)", sourceLocation: sourceLocation)
        return row
    }

    @Test func aBlockedCardIsMarkedInTextAndInRedUntilItsBlockersAreDone() throws {
        var t = Self.testBoard()
        var model = TUIModelTests.model()
        model.board = t.board
        var screen = model.render()
        var lines = screen.lines
        // #4 waits for #1 and #3 (#2 is closed, so done); #5 waits for #4; the others wait for nothing.
        #expect(Self.cardRow(4, in: lines)?.contains("⊘ #4 Deploy") == true)
        #expect(Self.cardRow(5, in: lines)?.contains("⊘ #5 Announce") == true)
        for number in [1, 2, 3] { #expect(Self.cardRow(number, in: lines)?.contains("⊘") == false, "#\(number)") }
        // The mark is red, the rest of the title line is not.
        let y = try #require(lines.firstIndex { $0.contains("#4 Deploy") })
        let mark = try #require(screen.spans(y).first { $0.text.hasPrefix("⊘") })
        #expect(mark.style.foreground == .ansi(.red))
        let title = try #require(screen.spans(y).first { $0.text.contains("#4 Deploy") })
        #expect(title.style.foreground != .ansi(.red))
        // Without colour, the mark is still there (once for #4, once for #5).
        let plain = Renderer(colorMode: .none).render(from: nil, to: screen)
        #expect(plain.filter { $0 == "⊘" }.count == 2 && !plain.contains("[31m"))

        // #1 closed and #3 moved into the last column: #4 no longer waits, #5 still waits for #4.
        t.apply(.closeCard(card: "k1"))
        t.apply(.moveCard(card: "k3", column: "done", placement: .bottom))
        model.board = t.board
        screen = model.render()
        lines = screen.lines
        #expect(Self.cardRow(4, in: lines)?.contains("⊘") == false, "\(lines)")
        #expect(Self.cardRow(5, in: lines)?.contains("⊘ #5 Announce") == true)
        // Reopened, #1 blocks #4 again.
        t.apply(.reopenCard(card: "k1"))
        model.board = t.board
        #expect(Self.cardRow(4, in: model.render().lines)?.contains("⊘ #4 Deploy") == true)
        // Archived, it does not.
        t.apply(.archiveCard(card: "k1"))
        model.board = t.board
        #expect(Self.cardRow(4, in: model.render().lines)?.contains("⊘") == false)
    }

    @Test func theDetailListsPendingBlockersTheDoneOnesAndTheCardsItBlocks() throws {
        var t = Self.testBoard()
        var model = TUIModelTests.model()
        model.board = t.board
        // TODO shows #1, #2, #4, #5: down twice is #4.
        _ = model.update(TUIModelTests.key(.down))
        _ = model.update(TUIModelTests.key(.down))
        try #require(model.selectedCard?.id == "k4")
        _ = model.update(TUIModelTests.key(.enter))
        var screen = model.render()
        var lines = screen.lines
        #expect(lines.contains { $0.contains("⊘ Blocked by: #1 Fix login, #3 Ship it ") }, "\(lines)")
        #expect(lines.contains { $0.contains("Blocked by (done): ✓ #2 Write docs ") }, "\(lines)")
        #expect(lines.contains { $0.contains("Blocks: #5 Announce ") }, "\(lines)")
        // A done blocker is not listed as pending.
        #expect(!lines.contains { $0.contains("Blocked by: #1 Fix login, #2") })
        // Right under the title and its facts, the pending ones in red.
        let y = try #require(lines.firstIndex { $0.contains("Blocked by: #1") })
        #expect(lines[y - 2].contains("#4 Deploy") && lines[y - 1].contains("TODO · open"), "\(lines[(y - 2)...y])")
        #expect(screen.spans(y).contains { $0.text.contains("Blocked by: #1") && $0.style.foreground == .ansi(.red) })

        // Once #1 is closed and #3 is in the last column, nothing is pending: all three are listed as done.
        t.apply(.closeCard(card: "k1"))
        t.apply(.moveCard(card: "k3", column: "done", placement: .bottom))
        model.board = t.board
        screen = model.render()
        lines = screen.lines
        #expect(!lines.contains { $0.contains("⊘") && $0.contains("Blocked by:") }, "\(lines)")
        #expect(lines.contains { $0.contains("Blocked by (done): ✓ #1 Fix login, ✓ #2 Write docs, ✓ #3 Ship it ") }, "\(lines)")
        #expect(lines.contains { $0.contains("Blocks: #5 Announce ") })

        // A card without dependencies has no such lines.
        _ = model.update(TUIModelTests.key(.escape))
        _ = model.update(TUIModelTests.key(.up))
        _ = model.update(TUIModelTests.key(.enter))
        try #require(model.selectedCard?.id == "k2")
        lines = model.render().lines
        #expect(lines.contains { $0.contains("Blocks: #4 Deploy") })
        #expect(!lines.contains { $0.contains("Blocked by") })
    }

    @Test func aLongListOfBlockersWrapsInsideTheDetail() throws {
        var t = Self.testBoard()
        for n in 6...13 {
            t.apply(.addCard(AddCard(card: CardID("k\(n)"), column: "todo", title: "Step number \(n) of the plan")))
            t.apply(.blockCard(card: "k5", by: CardID("k\(n)")))
        }
        var model = TUIModelTests.model(width: 80, height: 40)
        model.board = t.board
        for _ in 0..<3 { _ = model.update(TUIModelTests.key(.down)) }
        try #require(model.selectedCard?.id == "k5")
        _ = model.update(TUIModelTests.key(.enter))
        let lines = model.render().lines
        let first = try #require(lines.firstIndex { $0.contains("⊘ Blocked by: #4 Deploy, #6 Step number 6") })
        // The text inside the box: from after its left border to before its right one.
        let left = try #require(lines[first].range(of: "│ ⊘ Blocked by")).lowerBound
        let start = lines[first].distance(from: lines[first].startIndex, to: left) + 2
        func inside(_ line: String) -> String {
            let characters = Array(line)
            return String(characters[start..<(start + 75)])  // the box is 79 columns wide in 80, its text 75
        }
        // The list goes on over the next rows, indented by 2, and is followed by the "Blocks" line.
        var rows = [inside(lines[first])]
        for line in lines[(first + 1)...] {
            let row = inside(line)
            guard row.hasPrefix("  "), !row.allSatisfy({ $0 == " " }) else { break }
            rows.append(row)
        }
        #expect(rows.count >= 3, "\(rows)")
        // Every blocker is named in full, none cut.
        let text = rows.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        for n in 6...13 { #expect(text.contains("#\(n) Step number \(n) of the plan"), "#\(n): \(text)") }
    }

    @Test func aBlockedCardCarriedOverAnInProgressColumnSaysWhatItWaitsFor() throws {
        let t = Self.testBoard()
        var model = TUIModelTests.model()
        model.board = t.board
        _ = model.update(TUIModelTests.key(.down))
        _ = model.update(TUIModelTests.key(.down))
        try #require(model.selectedCard?.id == "k4")
        _ = model.update(TUIModelTests.key(.character(" ")))
        // Over its own column: no warning.
        #expect(!model.render().lines.contains { $0.contains("⊘ blocked by") })
        // Over DOING (in progress by default): what it waits for.
        _ = model.update(TUIModelTests.key(.right))
        #expect(model.render().lines.contains { $0.contains("⊘ blocked by #1, #3") }, "\(model.render().lines)")
        // Over DONE (not in progress): no warning.
        _ = model.update(TUIModelTests.key(.right))
        #expect(!model.render().lines.contains { $0.contains("⊘ blocked by") })
    }
}
