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
}
