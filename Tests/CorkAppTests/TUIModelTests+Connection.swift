import BoardClient
import BoardCore
import BoardWire
import CorkApp
import TerminalUI
import Testing

/// The status line's connection state, and following another board.
extension TUIModelTests {
    @Test func theReconnectCountdownCountsDownWithTheModelsClock() {
        var model = Self.model()
        #expect(!model.needsTicks)
        _ = model.update(.client(.connection(.reconnecting(in: .milliseconds(2_500), lastError: "connection reset"))))
        #expect(model.feed.last?.text == "connection lost: connection reset")
        // Not "connection lost: lost the connection to …" when the library says it already.
        _ = model.update(.client(.connection(.connected(endpoint: "127.0.0.1:7420", user: "alice"))))
        _ = model.update(.client(.connection(.reconnecting(in: .milliseconds(2_500), lastError: "lost the connection to 127.0.0.1:7420: reset"))))
        #expect(model.feed.last?.text == "lost the connection to 127.0.0.1:7420: reset")
        #expect(model.render().lines[model.height - 2].contains("alice@main · reconnecting in 3s"))
        // Ticks of 500 ms: 2 000 ms left shows 2 s, 1 000 ms 1 s (always rounded up).
        var shown: [String] = []
        for _ in 1...5 {
            #expect(model.needsTicks)
            _ = model.update(.tick)
            shown.append(model.statusText.split(separator: " · ")[1].description)
        }
        #expect(shown == ["reconnecting in 2s (r: now)", "reconnecting in 2s (r: now)", "reconnecting in 1s (r: now)", "reconnecting in 1s (r: now)", "reconnecting…"])
        // Nothing left to count: no more ticks, so an idle client stays idle.
        #expect(!model.needsTicks)
        _ = model.update(.client(.connection(.connecting(endpoint: "127.0.0.1:7420"))))
        #expect(model.statusText.contains("connecting"))
        _ = model.update(.client(.connection(.reconnecting(in: .seconds(8), lastError: "refused"))))
        #expect(model.statusText.contains("reconnecting in 8s"))
        _ = model.update(.client(.connection(.connected(endpoint: "127.0.0.1:7420", user: "alice"))))
        #expect(model.statusText.contains("connected") && model.reconnectAt == nil && !model.needsTicks)
    }

    @Test func aConnectionLostWithoutAReasonSaysSoWithoutADanglingColon() {
        var model = Self.model()
        _ = model.update(.client(.connection(.reconnecting(in: .seconds(1), lastError: ""))))
        #expect(model.feed.last?.text == "connection lost")
    }

    @Test func slashBoardFollowsTheNewBoardAndForgetsTheOld() {
        var model = Self.model()
        _ = Self.enter("/filter label:bug", into: &model)
        let activity = Activity(seq: 7, at: Timestamp(milliseconds: 0), actor: "alice", kind: "card.close", card: "k1", changes: [:])
        _ = model.update(.client(.activity(ActivityEvent(activity: activity, op: .closeCard(card: "k1"), isOwn: true, board: model.board!))))
        #expect(model.undo.undoable.map(\.seq) == [7])

        #expect(Self.enter("/board ops", into: &model) == [.switchBoard("ops")])
        #expect(model.boardID == "ops" && model.board == nil && model.filter == nil)
        #expect(model.render().lines.contains { $0.contains("loading the board…") })
        #expect(model.statusText.hasPrefix("alice@ops"))
        // Undo never reaches back into the board left behind.
        model.focus = .board
        #expect(model.update(Self.key(.character("u"))).isEmpty)
        #expect(model.notice == "nothing of yours to undo")

        // The old board's last events, still on their way, are not shown as the new board.
        _ = model.update(Self.loaded(Self.board()))
        #expect(model.board == nil)
        let late = PendingOp(board: "main", mut: 4, request: .op(.editCard(EditCard(card: "k1", description: "mine", baseSeq: 3))))
        let reject = OpRejection(
            board: "main", mut: 4, code: .rejected(.conflict), message: "changed",
            current: .object(["seq": .int(9), "description": .string("theirs")]))
        _ = model.update(.client(.rejected(RejectedOp(op: late, reject: reject))))
        #expect(model.conflict == nil)
        #expect(model.feed.last?.text == "on main: card k1 was not changed: changed")
        var ops = TestBoard(Board(id: "ops", name: "Ops", owner: "alice"))
        ops.apply(.addCard(AddCard(card: "o1", column: "todo", title: "Rotate keys")))
        _ = model.update(Self.loaded(ops.board))
        #expect(model.board?.id == "ops")
        #expect(model.render().lines[1].contains("#1 Rotate keys"))

        // A bare /board opens the picker (it asks the server for the list) and stays on the board.
        #expect(Self.enter("/board", into: &model) == [.listBoards])
        #expect(model.overlay == .boards)
        #expect(model.boardID == "ops")
        #expect(Self.enter("/board not/an/id", into: &model).isEmpty)
        #expect(model.notice == "/board [ID] | /board create ID NAME | /board remind HOURS|default")
    }
}
