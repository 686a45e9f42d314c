import BoardCore
import GRDB

extension SQLiteStore {
    /// The columns `hooks` reads, in the order `HookRecord(row:)` decodes them.
    static let hookColumnsSQL = """
        id, board, url, events, secret, created_by, created_at, delivered_seq, failures, failing_since, failing,
        last_error, last_attempt_at, card_query
        """

    /// Stores a new hook unless its board has `maxPerBoard` already (false); `.duplicate` for a taken id,
    /// `.notFound` for a missing board.
    public func addHook(_ hook: HookRecord, maxPerBoard: Int) async throws(StoreError) -> Bool {
        let delivered = try StoreCoding.int64(hook.state.delivered, "delivered seq")
        let events = hook.events.joined(separator: ",")
        return try await write("add hook \(hook.id)") { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM boards WHERE id = ?", arguments: [hook.board.rawValue]) ?? false
            else { throw StoreError(.notFound, "no board \(hook.board)") }
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM hooks WHERE board = ?", arguments: [hook.board.rawValue]) ?? 0
            guard count < maxPerBoard else { return false }
            try db.execute(
                sql: """
                    INSERT INTO hooks (id, board, url, events, secret, created_by, created_at, delivered_seq, card_query)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    hook.id, hook.board.rawValue, hook.url, events, hook.secret, hook.createdBy.rawValue,
                    hook.createdAt.milliseconds, delivered, hook.query,
                ])
            return true
        }
    }

    /// The hooks of `board` (every board's when nil), by board, then by when they were added.
    public func hooks(board: BoardID?) async throws(StoreError) -> [HookRecord] {
        let id = board?.rawValue
        return try await read("hooks") { db in
            let rows: [Row]
            if let id {
                rows = try Row.fetchAll(
                    db, sql: "SELECT \(Self.hookColumnsSQL) FROM hooks WHERE board = ? ORDER BY created_at, id",
                    arguments: [id])
            } else {
                rows = try Row.fetchAll(db, sql: "SELECT \(Self.hookColumnsSQL) FROM hooks ORDER BY board, created_at, id")
            }
            return try rows.map { (row: Row) throws(StoreError) in try HookRecord(row: row) }
        }
    }

    /// Removes a hook of `board`; false when there is none.
    public func removeHook(_ id: String, board: BoardID) async throws(StoreError) -> Bool {
        try await write("remove hook \(id)") { db in
            try db.execute(sql: "DELETE FROM hooks WHERE id = ? AND board = ?", arguments: [id, board.rawValue])
            return db.changesCount == 1
        }
    }

    /// Records where a hook's delivery stands (nothing when it was removed).
    public func updateHook(_ id: String, state: HookState) async throws(StoreError) {
        let delivered = try StoreCoding.int64(state.delivered, "delivered seq")
        try await write("update hook \(id)") { db in
            try db.execute(
                sql: """
                    UPDATE hooks SET delivered_seq = ?, failures = ?, failing_since = ?, failing = ?, last_error = ?,
                        last_attempt_at = ?
                    WHERE id = ?
                    """,
                arguments: [
                    delivered, state.failures, state.failingSince?.milliseconds, state.failing ? 1 : 0, state.lastError,
                    state.lastAttemptAt?.milliseconds, id,
                ])
        }
    }
}

extension HookRecord {
    /// A row of `SQLiteStore.hookColumnsSQL`; `.corrupt` when a column holds the wrong thing.
    init(row: Row) throws(StoreError) {
        let events: String = try StoreCoding.column(row, 3)
        let failingSince: Int64? = try StoreCoding.column(row, 9)
        let lastAttempt: Int64? = try StoreCoding.column(row, 12)
        let failing: Int64 = try StoreCoding.column(row, 10)
        self.init(
            id: try StoreCoding.column(row, 0), board: BoardID(try StoreCoding.column(row, 1) as String),
            url: try StoreCoding.column(row, 2), events: HookRecord.events(events), query: try StoreCoding.column(row, 13),
            secret: try StoreCoding.column(row, 4), createdBy: UserID(try StoreCoding.column(row, 5) as String),
            createdAt: Timestamp(milliseconds: try StoreCoding.column(row, 6)),
            state: HookState(
                delivered: try StoreCoding.uint64(try StoreCoding.column(row, 7), "delivered seq"),
                failures: try StoreCoding.column(row, 8), failingSince: failingSince.map(Timestamp.init(milliseconds:)),
                failing: failing != 0, lastError: try StoreCoding.column(row, 11),
                lastAttemptAt: lastAttempt.map(Timestamp.init(milliseconds:))))
    }

    /// The stored filter text (`card.*,comment.add`) as its entries.
    static func events(_ text: String) -> [String] {
        text.split(separator: ",").map(String.init)
    }
}
