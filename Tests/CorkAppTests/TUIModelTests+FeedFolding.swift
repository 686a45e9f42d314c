import BoardClient
import BoardCore
import BoardWire
import CorkApp
import TerminalUI
import Testing

/// Reorders in the feed: one person walking one card up or down a column is one line with a count.
extension TUIModelTests {
    /// `actor` reorders card `card` on `model`'s board, as the client reports it (the change applied, then its event).
    /// The card goes to the other end of TODO (#1 and #2 swap), so each reorder is a change.
    static func reorder(_ card: CardID, by actor: UserID, seq: UInt64, in model: inout TUIModel) {
        var board = model.board!
        let other: CardID = card == "k1" ? "k2" : "k1"
        let first = board.cards(in: "todo").first?.id == card
        let op = Op.moveCard(card: card, column: "todo", placement: first ? Placement(after: other) : Placement(before: other))
        guard case .success(let result) = board.apply(op, context: ApplyContext(actor: actor, role: .owner, now: Timestamp(milliseconds: 0), seq: seq)) else {
            Issue.record("the reorder was refused")
            return
        }
        _ = model.update(.client(.board(BoardUpdate(board: board, cause: .deltas, changedByOthers: [card]))))
        _ = model.update(.client(.activity(ActivityEvent(activity: result.activity, op: op, isOwn: actor == model.user, board: board))))
    }

    @Test func oneSomeonesReordersOfOneCardFoldIntoOneLineWithACount() {
        var model = Self.model()
        let before = model.feed.count
        Self.reorder("k1", by: "bob", seq: 50, in: &model)
        Self.reorder("k1", by: "bob", seq: 51, in: &model)
        Self.reorder("k1", by: "bob", seq: 52, in: &model)
        #expect(model.feed.count == before + 1, "\(model.feed.suffix(3).map(\.text))")
        #expect(model.feed.last?.text == "bob reordered #1 \"Fix login\" in TODO ×3", "\(model.feed.last?.text ?? "")")
        #expect(model.feed.last?.seq == 52)
        // Another card, or another person, starts a line of its own.
        Self.reorder("k2", by: "bob", seq: 53, in: &model)
        Self.reorder("k2", by: "alice", seq: 54, in: &model)
        #expect(model.feed.count == before + 3, "\(model.feed.suffix(3).map(\.text))")
        // A line between two reorders of the same card ends the run.
        Self.reorder("k1", by: "bob", seq: 55, in: &model)
        let chat = Activity(seq: 56, at: Timestamp(milliseconds: 0), actor: "bob", kind: "chat", text: "done", changes: [:])
        _ = model.update(.client(.activity(ActivityEvent(activity: chat, op: .chat(text: "done"), isOwn: false, board: model.board!))))
        Self.reorder("k1", by: "bob", seq: 57, in: &model)
        #expect(model.feed.count == before + 6, "\(model.feed.suffix(3).map(\.text))")
        #expect(model.feed.last?.text.hasSuffix("×2") == false)
    }
}
