import BoardCore

/// A feed's sentences where no seqs are shown (the full-screen client, the web page): an undo reads `(undo)`, and
/// `(redo)` when the change it undoes was itself an undo, which takes remembering the recent undos.
public struct FeedWords: Sendable {
    /// The seqs of recent changes that were undos.
    private var undos: Set<UInt64> = []

    public init() {}

    /// Remembers `activity` if it is an undo (an own one too, whose feed line is written elsewhere).
    public mutating func note(_ activity: Activity) {
        guard activity.undoOf != nil else { return }
        undos.insert(activity.seq)
        if undos.count > 4_096 { undos = Set(undos.sorted().suffix(2_048)) }
    }

    /// `activity` as a whole sentence (the feed wraps it).
    public mutating func sentence(_ activity: Activity, after board: Board) -> String {
        note(activity)
        let redo = activity.undoOf.map { undos.contains($0) } ?? false
        return FeedSentence.render(activity, after: board, textMax: .max, undoWords: true, undoneWasUndo: redo)
    }
}
