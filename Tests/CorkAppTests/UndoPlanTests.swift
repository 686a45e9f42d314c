import BoardCore
import CorkApp
import Testing

/// `cork undo` / `cork redo` find the change to name from history, as the full-screen client's stack would.
@Suite struct UndoPlanTests {
    static func record(_ seq: UInt64, _ actor: UserID, _ kind: String, undoOf: UInt64? = nil) -> Activity {
        Activity(seq: seq, at: Timestamp(milliseconds: 1_000 * Int64(seq)), actor: actor, kind: kind, card: "c1", undoOf: undoOf)
    }

    @Test func theNewestOwnChangeIsUndoneAndChatAndOthersArePassedOver() {
        let board = Board(id: "main", name: "Main", owner: "alice")
        let history = [
            Self.record(2, "alice", "card.add"), Self.record(3, "alice", "card.close"), Self.record(4, "bob", "card.reopen"),
            Self.record(5, "alice", "chat"),
        ]
        let stack = UndoPlan.stack(for: "alice", activities: history.reversed(), board: board)
        #expect(stack.undoable.map(\.seq) == [2, 3] && stack.redoable.isEmpty)
        #expect(UndoPlan.stack(for: "carol", activities: history, board: board).undoable.isEmpty)
    }

    @Test func anUndoGoesToTheRedoSideAndARedoBack() {
        let board = Board(id: "main", name: "Main", owner: "alice")
        var history = [Self.record(2, "alice", "card.add"), Self.record(3, "alice", "card.close"), Self.record(4, "alice", "card.reopen", undoOf: 3)]
        var stack = UndoPlan.stack(for: "alice", activities: history, board: board)
        #expect(stack.undoable.map(\.seq) == [2] && stack.redoable.map(\.seq) == [4])
        history.append(Self.record(5, "alice", "card.close", undoOf: 4))
        stack = UndoPlan.stack(for: "alice", activities: history, board: board)
        #expect(stack.undoable.map(\.seq) == [2, 5] && stack.redoable.isEmpty)
        // A new change of one's own leaves nothing to redo.
        history = Array(history.prefix(3)) + [Self.record(6, "alice", "card.edit")]
        stack = UndoPlan.stack(for: "alice", activities: history, board: board)
        #expect(stack.undoable.map(\.seq) == [2, 6] && stack.redoable.isEmpty)
    }
}
