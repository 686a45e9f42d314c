import BoardCore

/// Decides which board updates a client emits: one per input that changed what is shown, saying what changed.
///
/// Pure, and it keeps no board: holding the previous board would make the replica's next in-place apply copy the
/// whole card table. Whether anything changed comes from the ops (``BoardChanges``), never from comparing boards.
public struct BoardPublisher: Sendable {
    /// Whether an update has been emitted since the last ``reset()`` (the first one always says `.everything`).
    private var hasShown = false

    /// A publisher that has emitted nothing yet.
    public init() {}

    /// Forgets what was shown (another board is followed now).
    public mutating func reset() {
        hasShown = false
    }

    /// The update for `board` after an input that changed `changes`, or nil when nothing shown changed (a
    /// snapshot, and the first update, always make one).
    public mutating func publish(
        _ board: Board, cause: BoardUpdate.Cause, changes: BoardChanges, changedByOthers: Set<CardID> = [],
        isConfirmed: Bool = false, throughMut: UInt64 = 0
    ) -> BoardUpdate? {
        let changes = cause == .snapshot || !hasShown ? BoardChanges.everything : changes
        if changes.isEmpty { return nil }
        hasShown = true
        return BoardUpdate(
            board: board, cause: cause, changes: changes, changedByOthers: changedByOthers, isConfirmed: isConfirmed,
            throughMut: throughMut)
    }
}
