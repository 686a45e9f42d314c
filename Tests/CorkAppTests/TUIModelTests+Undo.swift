import BoardClient
import BoardCore
import BoardWire
import CorkApp
import TerminalUI
import Testing

/// Undo (`u`, `/undo`) and redo (`U`, `/redo`): the user's own changes, walked back in order, said in words.
extension TUIModelTests {
    /// The activity event for the change `t` just made, as this client's own (or someone else's).
    static func delivered(_ change: Change, own: Bool = true) -> TUIMessage {
        .client(.activity(ActivityEvent(activity: change.activity, op: .chat(text: ""), isOwn: own, board: change.board)))
    }

    /// The reject of an undo request for `seq`.
    static func refusedUndo(of seq: UInt64, code: RejectCode = .rejected(.undoConflict), message: String) -> TUIMessage {
        let op = PendingOp(board: "main", mut: 40, request: .undo(seq: seq))
        return .client(.rejected(RejectedOp(op: op, reject: OpRejection(board: "main", mut: 40, code: code, message: message))))
    }

    @Test func undoWalksBackOwnChangesInOrderAndRedoUndoesTheUndo() throws {
        var t = Self.testBoard()
        var model = Self.model()
        let close = try t.change(.closeCard(card: "k1"))
        _ = model.update(Self.delivered(close))
        let other = try t.change(.editCard(EditCard(card: "k3", title: "Ship it now")), as: "bob")
        _ = model.update(Self.delivered(other, own: false))
        let move = try t.change(.moveCard(card: "k2", column: "done", placement: .bottom))
        _ = model.update(Self.delivered(move))

        // u takes back the newest own change, and says which in words.
        #expect(model.update(Self.key(.character("u"))) == [.undo(seq: move.activity.seq)])
        #expect(model.notice == "undoing: moved #2 \"Write docs\" TODO → DONE")
        // Until the server answers, another u waits (two undos in flight could land out of order).
        #expect(model.update(Self.key(.character("u"))).isEmpty)
        #expect(model.notice?.contains("still waiting") == true)
        let undoMove = try t.undoChange(seq: move.activity.seq)
        _ = model.update(Self.delivered(undoMove))
        #expect(model.feed.last?.text == "alice undid: moved #2 \"Write docs\" TODO → DONE")

        // The next u is the change before it, never the undo just made (that would toggle) nor bob's change.
        #expect(model.update(Self.key(.character("u"))) == [.undo(seq: close.activity.seq)])
        let refusal = "its closed state was changed since; undoing would overwrite that"
        _ = model.update(Self.refusedUndo(of: close.activity.seq, message: refusal))
        #expect(model.feed.last?.text
            == "could not undo closed #1 \"Fix login\": \(refusal) (undo_conflict); u tries again, /undo skip goes past it")
        // A refused undo stays on top: u asks again, nothing older is undone behind the user's back.
        #expect(model.update(Self.key(.character("u"))) == [.undo(seq: close.activity.seq)])
        _ = model.update(Self.refusedUndo(of: close.activity.seq, message: refusal))
        #expect(Self.enter("/undo skip", into: &model).isEmpty)
        #expect(model.feed.last?.text == "skipped, will not undo: closed #1 \"Fix login\"")
        model.focus = .board
        #expect(model.update(Self.key(.character("u"))).isEmpty)
        #expect(model.notice == "nothing of yours to undo")

        // U redoes: an undo of the undo, through the server.
        #expect(model.update(Self.key(.character("U"))) == [.undo(seq: undoMove.activity.seq)])
        let redo = try t.undoChange(seq: undoMove.activity.seq)
        #expect(redo.board.cards["k2"]?.column == "done")
        _ = model.update(Self.delivered(redo))
        #expect(model.feed.last?.text == "alice redid: moved #2 \"Write docs\" TODO → DONE")
        #expect(model.update(Self.key(.character("U"))).isEmpty)
        #expect(model.notice == "nothing to redo")
        // And the redone change can be undone again; /redo is U.
        #expect(model.update(Self.key(.character("u"))) == [.undo(seq: redo.activity.seq)])
        let again = try t.undoChange(seq: redo.activity.seq)
        _ = model.update(Self.delivered(again))
        #expect(Self.enter("/redo", into: &model) == [.undo(seq: again.activity.seq)])
    }

    /// The model after alice closed #1 and pressed `u`: the undo of that close is sent and not answered yet.
    static func undoingClose(_ t: inout TestBoard) throws -> (model: TUIModel, close: Change) {
        var model = Self.model()
        let close = try t.change(.closeCard(card: "k1"))
        _ = model.update(Self.delivered(close))
        _ = model.update(Self.key(.character("u")))
        return (model, close)
    }

    @Test func aNewChangeClearsWhatCouldBeRedone() throws {
        var t = Self.testBoard()
        var (model, close) = try Self.undoingClose(&t)
        _ = model.update(Self.delivered(try t.undoChange(seq: close.activity.seq)))
        let archive = try t.change(.archiveCard(card: "k2"))
        _ = model.update(Self.delivered(archive))
        #expect(model.update(Self.key(.character("U"))).isEmpty)
        #expect(model.notice == "nothing to redo")
        #expect(model.update(Self.key(.character("u"))) == [.undo(seq: archive.activity.seq)])
    }
}

extension TUIModelTests {
    /// Someone else's undo and redo read as such in this user's feed, without a seq the screen never shows: a redo
    /// read "(undo of seq 30)" and could not be told from an undo.
    @Test func othersUndoAndRedoSayWhichTheyAre() throws {
        var t = Self.testBoard()
        var model = Self.model()
        model.user = "bob"  // alice undoes and redoes her own change; bob watches
        let close = try t.change(.closeCard(card: "k2"))
        _ = model.update(Self.delivered(close, own: false))
        let undo = try t.undoChange(seq: close.activity.seq)
        _ = model.update(Self.delivered(undo, own: false))
        #expect(model.feed.last?.text == "alice reopened #2 \"Write docs\" (undo)", "\(model.feed.last?.text ?? "")")
        let redo = try t.undoChange(seq: undo.activity.seq)
        _ = model.update(Self.delivered(redo, own: false))
        #expect(model.feed.last?.text == "alice closed #2 \"Write docs\" (redo)", "\(model.feed.last?.text ?? "")")
    }
}
