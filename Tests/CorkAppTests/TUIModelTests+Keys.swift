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

    /// While the client waits to reconnect (the backoff may have grown to half a minute), `r` dials now.
    @Test func rReconnectsNowWhileWaiting() {
        var model = Self.model()
        #expect(model.update(Self.key(.character("r"))).isEmpty)
        _ = model.update(.client(.connection(.reconnecting(in: .seconds(30), lastError: "refused"))))
        #expect(model.statusText.contains("reconnecting in 30s (r: now)"))
        #expect(model.update(Self.key(.character("r"))) == [.reconnectNow])
        model.focus = .feed
        #expect(model.update(Self.key(.character("r"))) == [.reconnectNow])
        // In the input line r is a letter.
        model.focus = .input
        #expect(model.update(Self.key(.character("r"))).isEmpty)
        #expect(model.input.text == "r")
    }
}
