import BoardClient
import BoardCore
import BoardWire
import CorkApp
import TerminalUI
import Testing

/// Smaller things a person at the keyboard meets: pasting, limits while typing, markers without colour.
extension TUIModelTests {
    @Test func pastedLinesAreJoinedWithASpace() {
        var model = Self.model()
        model.focus = .input
        _ = model.update(Self.key(.paste("first line\nsecond line\n\nthird\twith a tab\n")))
        #expect(model.input.text == "first line second line third with a tab")
        // Pasted on the board, the text goes to the input line the same way.
        var board = Self.model()
        _ = board.update(Self.key(.paste("a\nb")))
        #expect(board.focus == .input && board.input.text == "a b")
    }

    /// Overdue is said in text, not only in red: with `NO_COLOR` (or colour blindness) the mark is still there.
    @Test func overdueIsMarkedWithoutColour() throws {
        var model = Self.model()
        let lines = model.render().lines
        // #1 was due 2026-03-01 (today is 2026-03-10); nothing is due on #2.
        #expect(lines[2].contains("!2026-03-01"), "\(lines[2])")
        var t = Self.testBoard()
        t.apply(.editCard(EditCard(card: "k2", due: .set(Day(year: 2026, month: 3, day: 20)!))))
        t.apply(.editCard(EditCard(card: "k3", due: .set(Day(year: 2026, month: 3, day: 1)!))))
        t.apply(.closeCard(card: "k3"))
        model.board = t.board
        let later = model.render().lines
        #expect(later[4].contains("2026-03-20") && !later[4].contains("!2026-03-20"), "\(later[4])")
        // A closed card is not overdue.
        #expect(later[2].contains("2026-03-01") && later.filter { $0.contains("!2026-03-01") }.count == 1)
        // With colour off, the terminal gets the mark and no colour.
        let plain = Renderer(colorMode: .none).render(from: nil, to: model.render())
        #expect(plain.contains("!2026-03-01") && !plain.contains("[31m"))
        // The card detail says it in words.
        _ = model.update(Self.key(.enter))
        #expect(model.render().lines.contains { $0.contains("due 2026-03-01 (overdue)") })
    }
}
