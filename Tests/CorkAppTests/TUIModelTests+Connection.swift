import BoardClient
import BoardCore
import BoardWire
import CorkApp
import TerminalUI
import Testing

/// The status line's connection state.
extension TUIModelTests {
    @Test func theReconnectCountdownCountsDownWithTheModelsClock() {
        var model = Self.model()
        #expect(!model.needsTicks)
        _ = model.update(.client(.connection(.reconnecting(in: .milliseconds(2_500), lastError: "connection reset"))))
        #expect(model.feed.last?.text == "connection lost: connection reset")
        #expect(model.render().lines[model.height - 2].contains("alice@main · reconnecting in 3s"))
        // Ticks of 500 ms: 2 000 ms left shows 2 s, 1 000 ms 1 s (always rounded up).
        var shown: [String] = []
        for _ in 1...5 {
            #expect(model.needsTicks)
            _ = model.update(.tick)
            shown.append(model.statusText.split(separator: " · ")[1].description)
        }
        #expect(shown == ["reconnecting in 2s", "reconnecting in 2s", "reconnecting in 1s", "reconnecting in 1s", "reconnecting…"])
        // Nothing left to count: no more ticks, so an idle client stays idle.
        #expect(!model.needsTicks)
        _ = model.update(.client(.connection(.connecting(endpoint: "127.0.0.1:7420"))))
        #expect(model.statusText.contains("connecting"))
        _ = model.update(.client(.connection(.reconnecting(in: .seconds(8), lastError: "refused"))))
        #expect(model.statusText.contains("reconnecting in 8s"))
        _ = model.update(.client(.connection(.connected(endpoint: "127.0.0.1:7420", user: "alice"))))
        #expect(model.statusText.contains("connected") && model.reconnectAt == nil && !model.needsTicks)
    }
}
