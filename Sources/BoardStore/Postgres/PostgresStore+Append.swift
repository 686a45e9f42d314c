import BoardCore
import Foundation
import Logging
import PostgresNIO

extension PostgresStore {
    /// Appends events (of one or more boards) and snapshots in one transaction; returns once it is committed.
    ///
    /// The same checks as `SQLiteStore.append`: each board's events in seq order, the first at the board's stored
    /// head + 1. The board rows are locked (`SELECT … FOR UPDATE`, in id order so two nodes never deadlock), so two
    /// nodes appending to one board take turns and the second finds the head moved: its append fails with
    /// `.internal` and writes nothing. `.duplicate` for a `(actor, clientID, mut)` already committed.
    public func append(_ events: [StoredEvent], snapshots: [Board]) async throws(StoreError) {
        guard !events.isEmpty || !snapshots.isEmpty else { return }
        let batch = try EncodedBatch(events: events, snapshots: snapshots, eventJSON: configuration.eventJSON)
        let kept = configuration.snapshotsKept
        let logger = self.logger
        try await write("append") { connection in
            try await Self.append(batch.events, states: batch.snapshots, snapshotsKept: kept, connection, logger: logger)
        }
    }

    /// The body of `append`'s transaction.
    private static func append(
        _ events: [EncodedEvent], states: [SnapshotRow], snapshotsKept: Int, _ connection: PostgresConnection,
        logger: Logger
    ) async throws {
        var heads: [String: Int64] = [:]
        let boards = Set(events.map(\.board)).union(states.map(\.board)).sorted()
        for board in boards {
            var head: Int64?
            for try await value in try await connection.query(
                "SELECT head FROM boards WHERE id = \(board) FOR UPDATE", logger: logger
            ).decode(Int64.self) {
                head = value
            }
            guard let head else { throw StoreError(.notFound, "append: no board \(board)") }
            heads[board] = head
        }
        var renames: [String: String] = [:]
        var lastMutations: [ClientKey: Int64] = [:]
        for event in events {
            let current = heads[event.board] ?? 0
            guard event.seq == current + 1 else {
                throw StoreError(
                    .internal,
                    "append: board \(event.board): event seq \(event.seq) does not follow the stored head \(current)")
            }
            do {
                try await connection.query(
                    """
                    INSERT INTO events (board, seq, at, actor, client_id, mut, card, kind, op, activity, inverse, undo_of)
                    VALUES (\(event.board), \(event.seq), \(event.at), \(event.actor), \(event.clientID), \(event.mut),
                    \(event.card), \(event.kind), \(event.op), \(event.activity), \(event.inverse), \(event.undoOf))
                    """, logger: logger)
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
                throw StoreError(
                    .duplicate,
                    "append: mutation \(event.mut.map(String.init) ?? "-") of \(event.actor)/\(event.clientID ?? "-") "
                        + "is already committed")
            }
            if let clientID = event.clientID, let mut = event.mut {
                let key = ClientKey(user: event.actor, clientID: clientID, board: event.board)
                lastMutations[key] = max(lastMutations[key] ?? mut, mut)
            }
            if let name = event.rename { renames[event.board] = name }
            heads[event.board] = event.seq
        }
        for (key, mut) in lastMutations {
            try await connection.query(
                """
                INSERT INTO client_boards (username, client_id, board, last_mut)
                VALUES (\(key.user), \(key.clientID), \(key.board), \(mut))
                ON CONFLICT (username, client_id, board) DO UPDATE SET last_mut = greatest(client_boards.last_mut, excluded.last_mut)
                """, logger: logger)
        }
        for snapshot in states {
            let current = heads[snapshot.board] ?? 0
            guard snapshot.seq <= current else {
                throw StoreError(
                    .internal, "append: snapshot of board \(snapshot.board) at seq \(snapshot.seq) is ahead of its head \(current)")
            }
            try await connection.query(
                """
                INSERT INTO snapshots (board, seq, state) VALUES (\(snapshot.board), \(snapshot.seq), \(snapshot.state))
                ON CONFLICT (board, seq) DO UPDATE SET state = excluded.state
                """, logger: logger)
            try await connection.query(
                """
                DELETE FROM snapshots WHERE board = \(snapshot.board) AND seq < (
                    SELECT min(seq) FROM (SELECT seq FROM snapshots WHERE board = \(snapshot.board)
                    ORDER BY seq DESC LIMIT \(snapshotsKept)) AS newest)
                """, logger: logger)
            if snapshot.seq == current { renames[snapshot.board] = snapshot.name }
        }
        for (board, head) in heads {
            try await connection.query(
                "UPDATE boards SET head = \(head), name = coalesce(\(renames[board]), name) WHERE id = \(board)",
                logger: logger)
        }
    }
}
