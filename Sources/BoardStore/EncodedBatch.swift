import BoardCore
import Foundation

/// An append's events and snapshots encoded as the stores keep them, before any transaction starts (both stores
/// write the same columns), with the batch's own checks done: each board's events contiguous and ascending.
struct EncodedBatch: Sendable {
    /// The events' columns, in order.
    var events: [EncodedEvent]
    /// The snapshots' columns.
    var snapshots: [SnapshotRow]

    /// Encodes `events` and `snapshots`; `.internal` if a board's events are not contiguous and ascending in the
    /// batch or a value cannot be encoded.
    init(events: [StoredEvent], snapshots: [Board], eventJSON: (any EventJSON)?) throws(StoreError) {
        let encoder = StoreCoding.makeEncoder()
        var encoded: [EncodedEvent] = []
        encoded.reserveCapacity(events.count)
        var last: [String: Int64] = [:]
        for event in events {
            let row = try EncodedEvent(event, encoder, eventJSON)
            if let previous = last[row.board], row.seq != previous + 1 {
                throw StoreError(
                    .internal,
                    "append: board \(row.board): event seq \(row.seq) follows seq \(previous) in the batch; seqs must "
                        + "be contiguous and ascending")
            }
            last[row.board] = row.seq
            encoded.append(row)
        }
        self.events = encoded
        self.snapshots = try snapshots.map { (board: Board) throws(StoreError) in
            SnapshotRow(
                board: board.id.rawValue, seq: try StoreCoding.int64(board.seq, "snapshot seq"), name: board.name,
                state: try StoreCoding.json(board, encoder, "snapshot of \(board.id)"))
        }
    }
}

/// A snapshot ready to be written.
struct SnapshotRow: Sendable {
    var board: String
    var seq: Int64
    var name: String
    var state: String
}

/// A client installation of a user on a board: the key of the `client_boards` table.
struct ClientKey: Hashable {
    var user: String
    var clientID: String
    var board: String
}
