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
        #expect(model.notice == "r reconnects while the connection is down")
        _ = model.update(.client(.connection(.reconnecting(in: .seconds(30), lastError: "refused"))))
        #expect(model.statusText.contains("reconnecting in 30s (r: now)"))
        #expect(model.notice == nil, "the connection went down: that notice is stale")
        #expect(model.update(Self.key(.character("r"))) == [.reconnectNow])
        #expect(model.notice == "reconnecting now")
        _ = model.update(.client(.connection(.connecting(endpoint: "127.0.0.1:7420"))))
        #expect(model.notice == "reconnecting now", "while that dial is under way")
        #expect(model.update(Self.key(.character("r"))).isEmpty)
        #expect(model.notice == "already connecting")
        _ = model.update(.client(.connection(.reconnecting(in: .seconds(30), lastError: "refused"))))
        #expect(model.notice == nil, "the dial failed: the client waits again")
        #expect(model.update(Self.key(.character("r"))) == [.reconnectNow])
        _ = model.update(.client(.connection(.connected(endpoint: "127.0.0.1:7420", user: "alice"))))
        #expect(model.notice == nil)
        _ = model.update(.client(.connection(.reconnecting(in: .seconds(30), lastError: "refused"))))
        model.focus = .feed
        #expect(model.update(Self.key(.character("r"))) == [.reconnectNow])
        // In the input line r is a letter.
        model.focus = .input
        #expect(model.update(Self.key(.character("r"))).isEmpty)
        #expect(model.input.text == "r")
    }

    /// PgUp / PgDn move the selection a screenful of cards, G to the last card (g / Home to the first), on the board
    /// as in the feed.
    @Test func pageKeysAndGWorkOnTheBoard() {
        var t = Self.testBoard()
        for n in 3...40 { t.apply(.addCard(AddCard(card: CardID("p\(n)"), column: "todo", title: "Card \(n)"))) }
        var model = Self.model(width: 100, height: 30)
        model.board = t.board
        let count = model.visibleCards(0).count
        let page = (model.boardHeight - 1) / 2
        #expect(model.update(Self.key(.pageDown)) == [.presence(.viewing, card: model.visibleCards(0)[page].id)])
        #expect(model.row == page)
        _ = model.update(Self.key(.pageDown))
        #expect(model.row == 2 * page)
        _ = model.update(Self.key(.pageUp))
        #expect(model.row == page)
        _ = model.update(Self.key(.character("G")))
        #expect(model.row == count - 1)
        #expect(model.render().lines.contains { $0.contains("#41 Card 40") })
        _ = model.update(Self.key(.pageDown))
        #expect(model.row == count - 1)
        _ = model.update(Self.key(.character("g")))
        #expect(model.row == 0)
    }

    /// After `n` (or `/add`), the new card is selected once it shows on the board, ready for e, E, H/L.
    @Test func aNewCardIsSelected() throws {
        for way in ["n", "/add"] {
            var t = Self.testBoard()
            var model = Self.model()
            _ = model.update(Self.key(.right))  // DOING
            let effects: [TUIEffect]
            if way == "n" {
                _ = model.update(Self.key(.character("n")))
                Self.type("Brand new", into: &model)
                effects = model.update(Self.key(.enter))
            } else {
                effects = Self.enter("/add Brand new", into: &model)
            }
            guard case .submit(.addCard(let add))? = effects.first else {
                Issue.record("\(way): no card added: \(effects)")
                continue
            }
            #expect(add.column == "doing")
            // DOING has a hard limit of 1 in this board: lift it so the add applies, as the server would.
            t.apply(.setWIPLimit(column: "doing", limit: nil))
            t.apply(.addCard(add))
            _ = model.update(Self.loaded(t.board))
            #expect(model.selectedCard?.id == add.card, "\(way)")
            if way == "n" { #expect(model.focus == .board) }
        }
    }
}
