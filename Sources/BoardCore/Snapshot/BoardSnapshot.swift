/// What a UI shows of a board at one `seq`: its columns in board order, each with the cards it displays.
///
/// Build one with ``Board/snapshot(where:)`` and compare two with ``SnapshotDiff``. A snapshot made from a board
/// has unique column ids and unique card ids across all columns; ``SnapshotDiff`` relies on the column ids being
/// unique.
public struct BoardSnapshot: Hashable, Sendable {
    /// The seq of the board this snapshot was taken from.
    public var seq: UInt64
    /// The columns, left to right.
    public var columns: [ColumnSnapshot]

    /// Makes a snapshot from its parts.
    public init(seq: UInt64, columns: [ColumnSnapshot]) {
        self.seq = seq
        self.columns = columns
    }

    /// The column with this id, if the snapshot shows it.
    public func column(_ id: ColumnID) -> ColumnSnapshot? {
        columns.first { $0.column.id == id }
    }
}
