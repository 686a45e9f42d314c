import BoardClient
import BoardCore
import BoardWire
import CorkApp
import TerminalUI
import Testing

/// The status line's notice says what is going on; once that is over (answered, refused, moved away from) it goes,
/// not only at the next key.
extension TUIModelTests {
    @Test func anUndoingNoticeEndsWhenTheUndoIsDoneOrRefused() throws {
        var t = Self.testBoard()
        var (model, close) = try Self.undoingClose(&t)
        #expect(model.notice == "undoing: closed #1 \"Fix login\"")
        let undone = try t.undoChange(seq: close.activity.seq)
        _ = model.update(Self.delivered(undone))
        #expect(model.notice == nil, "the undo is done: the feed says so")

        _ = model.update(Self.key(.character("U")))
        #expect(model.notice == "redoing: closed #1 \"Fix login\"")
        _ = model.update(Self.refusedUndo(of: undone.activity.seq, message: "changed since"))
        #expect(model.notice == nil, "the redo was refused: the feed says why")

        // Another notice set meanwhile is not the undo's to clear.
        _ = model.update(Self.key(.character("U")))
        _ = model.update(Self.key(.character("r")))
        let other = model.notice
        _ = model.update(Self.refusedUndo(of: undone.activity.seq, message: "changed since"))
        #expect(model.notice == other && other != nil)
    }

    @Test func noConflictToResolveEndsWhenAConflictArrives() {
        var model = Self.model()
        #expect(Self.enter("/keep", into: &model).isEmpty)
        #expect(model.notice == "no description conflict to resolve")
        let op = PendingOp(board: "main", mut: 4, request: .op(.editCard(EditCard(card: "k1", description: "mine", baseSeq: 3))))
        let reject = OpRejection(
            board: "main", mut: 4, code: .rejected(.conflict), message: "changed",
            current: .object(["seq": .int(9), "description": .string("theirs")]))
        _ = model.update(.client(.rejected(RejectedOp(op: op, reject: reject))))
        #expect(model.conflict != nil)
        #expect(model.notice != "no description conflict to resolve")
    }

    @Test func aMilestoneNoticeEndsWhenTheChangeLandsOrIsRefused() throws {
        var t = Self.testBoard()
        t.apply(.createMilestone(milestone: "v1", title: "v1", description: nil, due: nil))
        var model = Self.model()
        model.board = t.board
        _ = model.update(Self.key(.character("M")))
        let assigned = model.update(Self.key(.enter))
        #expect(assigned == [.submit(.editCard(EditCard(card: "k1", milestone: .set("v1"))))])
        #expect(model.notice == "1 card into v1")
        let landed = try t.change(.editCard(EditCard(card: "k1", milestone: .set("v1"))))
        _ = model.update(Self.delivered(landed))
        #expect(model.notice == nil, "the change landed: the feed says so")

        // Refused: the notice would be wrong, so it goes too.
        _ = model.update(Self.key(.down))
        _ = model.update(Self.key(.character("M")))
        _ = model.update(Self.key(.enter))
        #expect(model.notice == "1 card into v1")
        let op = PendingOp(board: "main", mut: 5, request: .op(.editCard(EditCard(card: "k2", milestone: .set("v1")))))
        let reject = OpRejection(board: "main", mut: 5, code: .rejected(.forbidden), message: "no")
        _ = model.update(.client(.rejected(RejectedOp(op: op, reject: reject))))
        #expect(model.notice == nil)
    }

    @Test func theColumnHeaderHintShowsOnlyWhileTheHeaderHasTheFocus() {
        var model = Self.model()
        _ = model.update(Self.key(.character("k")))
        #expect(model.onHeader)
        #expect(model.statusText.contains("e rename"))
        _ = model.update(Self.key(.tab))
        #expect(model.focus == .feed)
        #expect(!model.statusText.contains("e rename"), "\(model.statusText)")
        _ = model.update(Self.key(.tab))
        #expect(!model.statusText.contains("e rename"), "\(model.statusText)")
        _ = model.update(Self.key(.tab))
        #expect(model.focus == .board && model.statusText.contains("e rename"))
    }
}
