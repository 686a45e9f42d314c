import BoardCore

/// A board as the store lists it at start-up: its id, name, head seq, epoch and whether it is archived.
public struct BoardRecord: Hashable, Sendable {
    /// The board's id.
    public var id: BoardID
    /// The board's name (kept current by `board.rename` events and snapshots).
    public var name: String
    /// The seq of the newest committed event (the board's seq when it was created if there is none).
    public var seq: UInt64
    /// The log lineage the seqs belong to; a fresh random value per board, changed when a backup is restored.
    public var epoch: String
    /// Whether the board is archived: kept, but not served (`corkd board archive`).
    public var archived: Bool

    /// Makes a record.
    public init(id: BoardID, name: String, seq: UInt64, epoch: String, archived: Bool = false) {
        self.id = id
        self.name = name
        self.seq = seq
        self.epoch = epoch
        self.archived = archived
    }
}
