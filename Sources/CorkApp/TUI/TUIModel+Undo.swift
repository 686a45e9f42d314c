import BoardClient
import BoardCore

extension TUIModel {
    /// `u` / `/undo` and `U` / `/redo`: asks the server to undo the newest change of the user's (or to undo the
    /// newest undo), naming it in words; nothing when there is none or the last request is unanswered.
    mutating func undoKey(_ direction: UndoStack.Direction) -> [TUIEffect] {
        switch undo.begin(direction) {
        case .failure(let refusal):
            notice = refusal.message
            return []
        case .success(let entry):
            say("\(direction == .undo ? "undoing" : "redoing"): \(entry.words)", about: .undo(seq: entry.seq))
            return [.undo(seq: entry.seq)]
        }
    }

    /// `/undo skip` and `/redo skip`: drops the newest entry on the user's word, saying which in the feed.
    mutating func skipUndo(_ direction: UndoStack.Direction) -> [TUIEffect] {
        if let waiting = undo.waiting, waiting.direction == direction {
            notice = "still waiting for the server to \(waiting.direction.verb) \(waiting.entry.words)"
            return []
        }
        guard let entry = undo.skip(direction) else {
            notice = direction == .undo ? "nothing of yours to undo" : "nothing to redo"
            return []
        }
        post(FeedEntry("skipped, will not \(direction.verb): \(entry.words)", kind: .info))
        return []
    }

    /// An own change arrived: an undo or redo completes its entry (and the feed says which change, in words), any
    /// other change goes on the stack. Returns the feed line's text when it replaces the usual sentence.
    mutating func recordOwn(_ activity: Activity, after board: Board) -> String? {
        let actor = activity.actor.rawValue
        if let undone = activity.undoOf {
            endNotice(about: .undo(seq: undone))
            guard let (direction, entry) = undo.completed(undone: undone, by: activity.seq) else { return nil }
            return "\(actor) \(direction.done): \(entry.words)"
        }
        undo.record(seq: activity.seq, words: FeedSentence.describe(activity, after: board))
        return nil
    }

    /// A refused undo or redo: its entry stays, and the feed says which change and why.
    mutating func refusedUndo(of seq: UInt64, _ reject: OpRejection) -> Bool {
        endNotice(about: .undo(seq: seq))
        guard let (direction, entry) = undo.refused(seq, reason: reject.message) else { return false }
        let hint = "\(direction == .undo ? "u" : "U") tries again, /\(direction.verb) skip goes past it"
        post(FeedEntry("could not \(direction.verb) \(entry.words): \(reject.message) (\(reject.code.rawValue)); \(hint)", kind: .error))
        return true
    }
}
