import BoardCore

/// What `cork undo` and `cork redo` name, found in the board's history: the caller's own changes replayed, oldest
/// first, through the same ``UndoStack`` the full-screen client keeps, so both undo the same change. Pure.
///
/// Each own change goes on the undo side; an own change with `undo_of` moves the change it undid to the other side
/// (an undo to the redo side, a redo back to the undo side), and any other own change clears the redo side. Chat is
/// not a change of the board and is passed over. Changes older than the history read are not seen.
public enum UndoPlan {
    /// The stack of `user`'s changes among `activities` (any order), each described with the names of its time.
    public static func stack(for user: UserID, activities: [Activity], board: Board) -> UndoStack {
        var stack = UndoStack()
        for activity in activities.sorted(by: { $0.seq < $1.seq })
        where activity.actor == user && activity.kind != Op.Kind.chat.rawValue {
            if let undone = activity.undoOf {
                _ = stack.completed(undone: undone, by: activity.seq)
            } else {
                stack.record(seq: activity.seq, words: FeedSentence.describe(activity, after: board))
            }
        }
        return stack
    }
}
