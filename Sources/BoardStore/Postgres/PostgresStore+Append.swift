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
    /// `.headMoved` (the stored head in `StoreError.movedHead`) and writes nothing. `.duplicate` for a
    /// `(actor, clientID, mut)` already committed. Each board that gets events is announced on `corkd_heads`.
    public func append(_ events: [StoredEvent], snapshots: [Board]) async throws(StoreError) {
        guard !events.isEmpty || !snapshots.isEmpty else { return }
        try await append(EncodedBatch(events: events, snapshots: snapshots, eventJSON: configuration.eventJSON))
    }

    /// `append` for changes the server encoded: their texts are written as they are.
    public func append(encoded changes: [EncodedChange], snapshots: [Board]) async throws(StoreError) {
        guard !changes.isEmpty || !snapshots.isEmpty else { return }
        try await append(EncodedBatch(changes: changes, snapshots: snapshots))
    }

    /// One transaction for `batch`.
    private func append(_ batch: EncodedBatch) async throws(StoreError) {
        let kept = configuration.snapshotsKept
        let logger = self.logger
        try await write("append") { connection in
            try await Self.append(batch, snapshotsKept: kept, connection, logger: logger)
        }
    }

    /// The body of `append`'s transaction (also `importBoard`'s).
    static func append(
        _ batch: EncodedBatch, snapshotsKept: Int, _ connection: PostgresConnection, logger: Logger
    ) async throws {
        var heads: [String: Int64] = [:]
        for board in batch.boards {
            var head: Int64?
            for try await value in try await connection.query(
                "SELECT head FROM boards WHERE id = \(board) FOR UPDATE", logger: logger
            ).decode(Int64.self) {
                head = value
            }
            guard let head else { throw StoreError(.notFound, "append: no board \(board)") }
            heads[board] = head
        }
        // Another node committed to a board since this node's last commit: a typed outcome, so the node catches up
        // and writes again (a gap the other way, a batch beyond the head, stays `.internal` in `plan`).
        for (board, head) in heads {
            guard let first = batch.events.first(where: { $0.board == board }), first.seq <= head else { continue }
            throw StoreError.headMoved(BoardID(board), to: UInt64(head), batchStart: UInt64(max(0, first.seq)))
        }
        let plan = try batch.plan(heads: heads)
        for event in batch.events {
            do {
                try await connection.query(
                    """
                    INSERT INTO events (board, seq, at, actor, client_id, mut, card, kind, op, activity, inverse, undo_of)
                    VALUES (\(event.board), \(event.seq), \(event.at), \(event.actor), \(event.clientID), \(event.mut),
                    \(event.card), \(event.kind), \(event.op), \(event.activity), \(event.inverse), \(event.undoOf))
                    """, logger: logger)
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
                throw event.duplicate
            }
        }
        for (key, mut) in plan.lastMutations {
            try await connection.query(
                """
                INSERT INTO client_boards (username, client_id, board, last_mut)
                VALUES (\(key.user), \(key.clientID), \(key.board), \(mut))
                ON CONFLICT (username, client_id, board) DO UPDATE SET last_mut = greatest(client_boards.last_mut, excluded.last_mut)
                """, logger: logger)
        }
        for snapshot in batch.snapshots {
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
        }
        for (board, head) in plan.heads {
            try await connection.query(
                "UPDATE boards SET head = \(head), name = coalesce(\(plan.renames[board]), name) WHERE id = \(board)",
                logger: logger)
        }
        // Every node learns of the new heads once (and only if) this transaction commits.
        for board in Set(batch.events.map(\.board)) {
            guard let head = plan.heads[board] else { continue }
            try await connection.query(Self.notifyHead(board: board, head: head), logger: logger)
        }
    }
}
