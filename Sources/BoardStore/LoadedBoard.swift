import BoardCore

/// A board as loaded from the store: the newest snapshot and every event after it.
public struct LoadedBoard: Sendable {
    /// The newest stored snapshot (its `seq` says where the tail starts).
    public var snapshot: Board
    /// The board's epoch.
    public var epoch: String
    /// Every event with a seq above the snapshot's, ascending and contiguous.
    public var tail: [StoredEvent]

    /// Makes a loaded board.
    public init(snapshot: Board, epoch: String, tail: [StoredEvent]) {
        self.snapshot = snapshot
        self.epoch = epoch
        self.tail = tail
    }

    /// The current board: the snapshot with the tail applied by the reducer, in order.
    ///
    /// Each event is replayed with its own actor, time and seq and the `owner` role: it was authorized when it was
    /// committed, so replay only re-derives the state. Throws `.corrupt` if an event does not follow the one before
    /// it or if the reducer refuses it (the log and the reducer disagree).
    public func replayed() throws(StoreError) -> Board {
        var board = snapshot
        for event in tail {
            guard event.seq == board.seq + 1 else {
                throw StoreError(
                    .corrupt, "board \(board.id): event seq \(event.seq) does not follow seq \(board.seq)")
            }
            let context = ApplyContext(actor: event.actor, role: .owner, now: event.at, seq: event.seq)
            switch board.apply(event.op, context: context) {
            case .success(let result) where !result.isNoop:
                continue
            case .success:
                throw StoreError(
                    .corrupt, "board \(board.id): event \(event.seq) (\(event.op.kind)) replays as a no-op")
            case .failure(let rejection):
                throw StoreError(
                    .corrupt,
                    "board \(board.id): event \(event.seq) (\(event.op.kind)) is refused on replay: \(rejection)")
            }
        }
        return board
    }
}
