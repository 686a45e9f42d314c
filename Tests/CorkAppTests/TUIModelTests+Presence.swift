import BoardClient
import BoardCore
import BoardWire
import CorkApp
import TerminalUI
import Testing

/// What the others see this user doing (✎ editing, ✥ dragging) ends when the action ends, whatever its outcome.
extension TUIModelTests {
    @Test(arguments: [nil, "New description"])
    func theEditingMarkerEndsWhenTheEditorReturns(text: String?) {
        var model = Self.model()
        let opened = model.update(Self.key(.character("E")))
        #expect(opened.first == .presence(.editing, card: "k1"))
        guard case .edit(_, let purpose)? = opened.last else {
            Issue.record("no editor: \(opened)")
            return
        }
        // Saved, unchanged or failed: the others are told at once that this user is only viewing again.
        let returned = model.update(.edited(purpose, text))
        #expect(returned.last == .presence(.viewing, card: "k1"), "\(returned)")
        if let text {
            #expect(returned.first == .submit(.editCard(EditCard(card: "k1", description: text, baseSeq: 3))))
        }
    }

    @Test func mergingInTheEditorShowsEditingUntilItReturns() {
        var model = Self.conflicted()
        let opened = Self.enter("/merge", into: &model)
        #expect(opened.first == .presence(.editing, card: "k1"))
        guard case .edit(_, let purpose)? = opened.last else {
            Issue.record("no editor: \(opened)")
            return
        }
        #expect(model.update(.edited(purpose, nil)).last == .presence(.viewing, card: "k1"))
    }

    @Test func aCarriedCardThatDisappearsEndsTheDragMarker() {
        var model = Self.model()
        _ = model.update(Self.key(.character(" ")))
        var board = model.board!
        _ = board.apply(.archiveCard(card: "k1"), context: ApplyContext(actor: "bob", role: .owner, now: Timestamp(milliseconds: 0), seq: 99))
        let effects = model.update(Self.loaded(board, changedByOthers: ["k1"]))
        #expect(model.carry == nil)
        #expect(effects == [.presence(.viewing, card: "k2")])
    }

    /// A viewer is told at once that viewers cannot change the board, before `$EDITOR` opens (not after writing a
    /// description the server then refuses), and no editing marker is shown.
    @Test func aViewerIsToldBeforeTheEditorOpens() {
        var t = Self.testBoard()
        t.apply(.setMember(user: "carol", role: .viewer, name: nil))
        var model = Self.model()
        model.board = t.board
        model.user = "carol"
        let refusal = "you are a viewer here: viewers cannot change the board"
        for key in ["E", "e", "n"] {
            var viewer = model
            #expect(viewer.update(Self.key(.character(Character(key)))).isEmpty, "\(key)")
            #expect(viewer.notice == refusal, "\(key)")
            #expect(viewer.focus == .board, "\(key)")
        }
        var detail = model
        _ = detail.update(Self.key(.enter))
        #expect(detail.update(Self.key(.character("E"))).isEmpty)
        #expect(detail.notice == refusal)
        #expect(Self.enter("/desc", into: &model).isEmpty)
        #expect(model.notice == refusal)
        // Chat is open to viewers.
        #expect(Self.enter("hello", into: &model) == [.submit(.chat(text: "hello"))])
    }

    /// Offline, who is where is not known: the others' markers and ghosts go (and come back with the server's list
    /// once subscribed again), without a "left" line for anyone.
    @Test func presenceIsNotShownWhileDisconnected() {
        var model = Self.model()
        let dragging = PresenceEntry(session: "s-2", user: "bob", state: .dragging, card: "k2", column: "doing", index: 0)
        _ = model.update(.client(.presence(PresenceEvent(sessions: ["s-2": dragging], change: .updated(dragging)))))
        #expect(model.render().lines.contains { $0.contains("bob is dragging") })
        let feed = model.feed.count
        _ = model.update(.client(.connection(.reconnecting(in: .seconds(1), lastError: "reset"))))
        let lines = model.render().lines
        #expect(!lines.contains { $0.contains("bob is dragging") || $0.contains("✥BO") }, "\(lines.joined(separator: "\n"))")
        #expect(model.presence.isEmpty)
        #expect(!model.feed.dropFirst(feed).contains { $0.text.contains("bob left") || $0.text.contains("bob joined") })
        // Subscribed again: the server's list, with nobody announced as joining.
        _ = model.update(.client(.connection(.connected(endpoint: "127.0.0.1:7420", user: "alice"))))
        _ = model.update(.client(.presence(PresenceEvent(sessions: ["s-2": dragging], change: .state))))
        #expect(model.render().lines.contains { $0.contains("bob is dragging") })
        #expect(!model.feed.dropFirst(feed).contains { $0.text.contains("bob joined") })
    }
}
