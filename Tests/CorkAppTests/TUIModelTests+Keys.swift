import BoardClient
import BoardCore
import BoardWire
import CorkApp
import TerminalUI
import Testing

/// Keys of a full-screen program: suspend, paging, reconnecting now.
extension TUIModelTests {
    /// Ctrl-Z suspends from any pane (raw mode turns off the terminal's own ^Z), and coming back redraws everything.
    @Test func ctrlZSuspendsAndContinuingRedraws() {
        for focus in [TUIModel.Focus.board, .feed, .input] {
            var model = Self.model()
            model.focus = focus
            #expect(model.update(.key(.ctrl("z"))) == [.suspend], "\(focus)")
        }
        var model = Self.model()
        #expect(model.update(.continued) == [.redraw])
    }
}
