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
        try self.init(
            rows: events.map { (event) throws(StoreError) in try EncodedEvent(event, encoder, eventJSON) },
            snapshots: snapshots, encoder: encoder)
    }

    /// Several batches written as one (group commit); `plan` checks each board's seqs across them.
    init(joining batches: [EncodedBatch]) {
        events = batches.flatMap(\.events)
        snapshots = batches.flatMap(\.snapshots)
    }

    /// The batch of changes the server encoded (their texts are written as they are).
    init(changes: [EncodedChange], snapshots: [Board]) throws(StoreError) {
        try self.init(
            rows: changes.map { (change) throws(StoreError) in try EncodedEvent(change) }, snapshots: snapshots,
            encoder: nil)
    }

    /// Checks `rows` (each board's seqs contiguous and ascending) and encodes `snapshots`.
    private init(rows: [EncodedEvent], snapshots: [Board], encoder: JSONEncoder?) throws(StoreError) {
        var last: [String: Int64] = [:]
        for row in rows {
            if let previous = last[row.board], row.seq != previous + 1 {
                throw StoreError(
                    .internal,
                    "append: board \(row.board): event seq \(row.seq) follows seq \(previous) in the batch; seqs must "
                        + "be contiguous and ascending")
            }
            last[row.board] = row.seq
        }
        self.events = rows
        self.snapshots = []
        guard !snapshots.isEmpty else { return }
        let encoder = encoder ?? StoreCoding.makeEncoder()
        self.snapshots = try snapshots.map { (board: Board) throws(StoreError) in
            SnapshotRow(
                board: board.id.rawValue, seq: try StoreCoding.int64(board.seq, "snapshot seq"), name: board.name,
                state: try StoreCoding.json(board, encoder, "snapshot of \(board.id)"))
        }
    }
}

extension EncodedBatch {
    /// The boards the batch writes to, in id order (the order both stores read and lock their heads in).
    var boards: [String] { Set(events.map(\.board)).union(snapshots.map(\.board)).sorted() }

    /// What the transaction writes besides the rows themselves, worked out from the stored `heads` of `boards`: each
    /// board's new head and name, and each client's highest mutation per board. `.internal` if an event does not
    /// follow its board's head or a snapshot is ahead of it (nothing is written then).
    func plan(heads stored: [String: Int64]) throws(StoreError) -> AppendPlan {
        var plan = AppendPlan(heads: stored)
        for event in events {
            let current = plan.heads[event.board] ?? 0
            guard event.seq == current + 1 else {
                throw StoreError(
                    .internal,
                    "append: board \(event.board): event seq \(event.seq) does not follow the stored head \(current)")
            }
            if let clientID = event.clientID, let mut = event.mut {
                let key = ClientKey(user: event.actor, clientID: clientID, board: event.board)
                plan.lastMutations[key] = max(plan.lastMutations[key] ?? mut, mut)
            }
            if let name = event.rename { plan.renames[event.board] = name }
            plan.heads[event.board] = event.seq
        }
        for snapshot in snapshots {
            let current = plan.heads[snapshot.board] ?? 0
            guard snapshot.seq <= current else {
                throw StoreError(
                    .internal, "append: snapshot of board \(snapshot.board) at seq \(snapshot.seq) is ahead of its head \(current)")
            }
            if snapshot.seq == current { plan.renames[snapshot.board] = snapshot.name }
        }
        return plan
    }
}

/// The bookkeeping of one append (see `EncodedBatch.plan`).
struct AppendPlan {
    /// Each board's head after the batch.
    var heads: [String: Int64]
    /// Boards whose listed name changes (a `board.rename`, or a snapshot at the new head).
    var renames: [String: String] = [:]
    /// The highest mutation of each client on each board in the batch.
    var lastMutations: [ClientKey: Int64] = [:]
}

extension EncodedEvent {
    /// The error for an event whose `(actor, clientID, mut)` is already committed.
    var duplicate: StoreError { .duplicateMutation(actor: actor, clientID: clientID, mut: mut) }
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
