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
}
