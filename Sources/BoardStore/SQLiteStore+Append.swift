import BoardCore
import Foundation
import GRDB

extension SQLiteStore {
    /// The insert statement for one event; its arguments come from `EncodedEvent.arguments`.
    static let insertEventSQL = """
        INSERT INTO events (board, seq, at, actor, client_id, mut, card, kind, op, activity, inverse, undo_of)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// Appends events (of one or more boards) and snapshots in one transaction; returns once it is durable.
    ///
    /// Each board's events must come in seq order, the first one at the board's stored head + 1, with no gap or
    /// repeat; every snapshot must be of a board that exists, at a seq no later than that board's head after the
    /// batch. Anything else throws `.internal` (`.notFound` for an unknown board, `.duplicate` for a
    /// `(actor, clientID, mut)` that is already committed) and writes nothing. The `clients` table's last mutation
    /// for each `(actor, clientID)` moves up in the same transaction, and `board.rename` events and snapshots keep
    /// the board's listed name current. Older snapshots beyond `Configuration.snapshotsKept` are deleted.
    ///
    /// Not cancellable: once called it runs to its commit or its rollback.
    public func append(_ events: [StoredEvent], snapshots: [Board]) async throws(StoreError) {
        guard !events.isEmpty || !snapshots.isEmpty else { return }
        let encoder = StoreCoding.makeEncoder()
        var encoded: [EncodedEvent] = []
        encoded.reserveCapacity(events.count)
        var last: [String: Int64] = [:]
        for event in events {
            let row = try EncodedEvent(event, encoder, configuration.eventJSON)
            if let previous = last[row.board], row.seq != previous + 1 {
                throw StoreError(
                    .internal,
                    "append: board \(row.board): event seq \(row.seq) follows seq \(previous) in the batch; seqs must "
                        + "be contiguous and ascending")
            }
            last[row.board] = row.seq
            encoded.append(row)
        }
        let states = try snapshots.map { (board: Board) throws(StoreError) in
            (
                board: board.id.rawValue, seq: try StoreCoding.int64(board.seq, "snapshot seq"), name: board.name,
                state: try StoreCoding.json(board, encoder, "snapshot of \(board.id)")
            )
        }
        let kept = configuration.snapshotsKept
        let batch = encoded
        try await write("append") { db in
            try SQLiteStore.append(batch, states: states, snapshotsKept: kept, db)
        }
    }

    /// The body of `append`'s transaction.
    private static func append(
        _ events: [EncodedEvent], states: [(board: String, seq: Int64, name: String, state: String)],
        snapshotsKept: Int, _ db: Database
    ) throws {
        var heads: [String: Int64] = [:]
        var renames: [String: String] = [:]
        var lastMutations: [ClientKey: Int64] = [:]
        func head(of board: String) throws -> Int64 {
            if let head = heads[board] { return head }
            guard let head = try Int64.fetchOne(db, sql: "SELECT head FROM boards WHERE id = ?", arguments: [board])
            else { throw StoreError(.notFound, "append: no board \(board)") }
            heads[board] = head
            return head
        }
        let insert = try db.cachedStatement(sql: insertEventSQL)
        let client = try db.cachedStatement(
            sql: """
                INSERT INTO clients (user, client_id, last_mut) VALUES (?, ?, ?)
                ON CONFLICT (user, client_id) DO UPDATE SET last_mut = max(last_mut, excluded.last_mut)
                """)
        for event in events {
            let current = try head(of: event.board)
            guard event.seq == current + 1 else {
                throw StoreError(
                    .internal,
                    "append: board \(event.board): event seq \(event.seq) does not follow the stored head \(current)")
            }
            do {
                try insert.execute(arguments: event.arguments)
            } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
                throw StoreError(
                    .duplicate,
                    "append: mutation \(event.mut.map(String.init) ?? "-") of \(event.actor)/\(event.clientID ?? "-") "
                        + "is already committed")
            }
            if let clientID = event.clientID, let mut = event.mut {
                let key = ClientKey(user: event.actor, clientID: clientID)
                lastMutations[key] = max(lastMutations[key] ?? mut, mut)
            }
            if let name = event.rename { renames[event.board] = name }
            heads[event.board] = event.seq
        }
        for (key, mut) in lastMutations {
            try client.execute(arguments: [key.user, key.clientID, mut])
        }
        for snapshot in states {
            let current = try head(of: snapshot.board)
            guard snapshot.seq <= current else {
                throw StoreError(
                    .internal,
                    "append: snapshot of board \(snapshot.board) at seq \(snapshot.seq) is ahead of its head \(current)"
                )
            }
            try db.execute(
                sql: "INSERT OR REPLACE INTO snapshots (board, seq, state) VALUES (?, ?, ?)",
                arguments: [snapshot.board, snapshot.seq, snapshot.state])
            try db.execute(
                sql: """
                    DELETE FROM snapshots WHERE board = ? AND seq < (
                        SELECT min(seq) FROM (SELECT seq FROM snapshots WHERE board = ? ORDER BY seq DESC LIMIT ?))
                    """,
                arguments: [snapshot.board, snapshot.board, snapshotsKept])
            if snapshot.seq == current { renames[snapshot.board] = snapshot.name }
        }
        for (board, head) in heads {
            try db.execute(
                sql: "UPDATE boards SET head = ?, name = coalesce(?, name) WHERE id = ?",
                arguments: [head, renames[board], board])
        }
    }
}

/// A client installation of a user: the key of the `clients` table.
private struct ClientKey: Hashable {
    var user: String
    var clientID: String
}
