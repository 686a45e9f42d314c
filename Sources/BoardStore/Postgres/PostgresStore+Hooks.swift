import BoardCore
import Logging
import PostgresNIO

extension PostgresStore {
    /// Stores a new hook unless its board has `maxPerBoard` already (false); `.duplicate` for a taken id,
    /// `.notFound` for a missing board. The board's row is locked, so two nodes adding at once count right.
    public func addHook(_ hook: HookRecord, maxPerBoard: Int) async throws(StoreError) -> Bool {
        let delivered = try StoreCoding.int64(hook.state.delivered, "delivered seq")
        let events = hook.events.joined(separator: ",")
        let board = hook.board.rawValue
        let logger = self.logger
        return try await write("add hook \(hook.id)") { connection in
            guard try await connection.query("SELECT 1 FROM boards WHERE id = \(board) FOR UPDATE", logger: logger)
                .collect().count == 1
            else { throw StoreError(.notFound, "no board \(board)") }
            var count = 0
            for try await n in try await connection.query("SELECT count(*) FROM hooks WHERE board = \(board)", logger: logger)
                .decode(Int64.self)
            {
                count = Int(n)
            }
            guard count < maxPerBoard else { return false }
            try await connection.query(
                """
                INSERT INTO hooks (id, board, url, events, secret, created_by, created_at, delivered_seq, card_query)
                VALUES (\(hook.id), \(board), \(hook.url), \(events), \(hook.secret), \(hook.createdBy.rawValue),
                    \(hook.createdAt.milliseconds), \(delivered), \(hook.query))
                """, logger: logger)
            return true
        }
    }

    /// The hooks of `board` (every board's when nil), by board, then by when they were added.
    public func hooks(board: BoardID?) async throws(StoreError) -> [HookRecord] {
        typealias Row = (
            String, String, String, String, String, String, Int64, Int64, Int64, Int64?, Bool, String?, Int64?, String?
        )
        let id = board?.rawValue
        let logger = self.logger
        let rows = try await read("hooks") { connection -> [Row] in
            let columns = """
                id, board, url, events, secret, created_by, created_at, delivered_seq, failures, failing_since, failing,
                last_error, last_attempt_at, card_query
                """
            let query: PostgresQuery =
                if let id {
                    "SELECT \(unescaped: columns) FROM hooks WHERE board = \(id) ORDER BY created_at, id"
                } else {
                    "SELECT \(unescaped: columns) FROM hooks ORDER BY board, created_at, id"
                }
            var rows: [Row] = []
            for try await row in try await connection.query(query, logger: logger).decode(Row.self) { rows.append(row) }
            return rows
        }
        return try rows.map { (row: Row) throws(StoreError) in
            HookRecord(
                id: row.0, board: BoardID(row.1), url: row.2, events: HookRecord.events(row.3), query: row.13,
                secret: row.4,
                createdBy: UserID(row.5), createdAt: Timestamp(milliseconds: row.6),
                state: HookState(
                    delivered: try StoreCoding.uint64(row.7, "delivered seq"), failures: Int(row.8),
                    failingSince: row.9.map(Timestamp.init(milliseconds:)), failing: row.10, lastError: row.11,
                    lastAttemptAt: row.12.map(Timestamp.init(milliseconds:))))
        }
    }

    /// Removes a hook of `board`; false when there is none.
    public func removeHook(_ id: String, board: BoardID) async throws(StoreError) -> Bool {
        let logger = self.logger
        let boardID = board.rawValue
        return try await write("remove hook \(id)") { connection in
            try await connection.query(
                "DELETE FROM hooks WHERE id = \(id) AND board = \(boardID) RETURNING id", logger: logger
            ).collect().count == 1
        }
    }

    /// Records where a hook's delivery stands (nothing when it was removed).
    public func updateHook(_ id: String, state: HookState) async throws(StoreError) {
        let delivered = try StoreCoding.int64(state.delivered, "delivered seq")
        let failures = Int64(state.failures)
        let failingSince = state.failingSince?.milliseconds
        let lastAttempt = state.lastAttemptAt?.milliseconds
        let logger = self.logger
        _ = try await write("update hook \(id)") { connection in
            try await connection.query(
                """
                UPDATE hooks SET delivered_seq = \(delivered), failures = \(failures), failing_since = \(failingSince),
                    failing = \(state.failing), last_error = \(state.lastError), last_attempt_at = \(lastAttempt)
                WHERE id = \(id)
                """, logger: logger)
        }
    }
}
