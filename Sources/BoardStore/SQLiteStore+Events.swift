import BoardCore
import Foundation
import GRDB

extension SQLiteStore {
    /// Events with `from <= seq <= to`, ascending, at most `limit` (none when `limit <= 0` or `from > to`).
    public func events(
        _ board: BoardID, from: UInt64, to: UInt64, limit: Int
    ) async throws(StoreError) -> [StoredEvent] {
        guard limit > 0, from <= to, let low = Int64(exactly: from) else { return [] }
        let high = Int64(clamping: to)
        let id = board.rawValue
        return try await read("events of \(id)") { db in
            let decoder = JSONDecoder()
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT \(StoredEvent.columnsSQL) FROM events WHERE board = ? AND seq BETWEEN ? AND ?
                    ORDER BY seq LIMIT ?
                    """,
                arguments: [id, low, high, limit]
            ).map { (row: Row) throws(StoreError) in try StoredEvent(row: row, decoder) }
        }
    }

    /// Activity paging backwards: events with `seq < before` (nil = newest), only those whose `activity.card` is
    /// `card` when it is given, newest first, at most `limit`.
    public func history(
        _ board: BoardID, card: CardID?, before: UInt64?, limit: Int
    ) async throws(StoreError) -> [StoredEvent] {
        guard limit > 0 else { return [] }
        let bound = before.map { Int64(clamping: $0) } ?? Int64.max
        let id = board.rawValue
        let cardID = card?.rawValue
        return try await read("history of \(id)") { db in
            let decoder = JSONDecoder()
            let rows: [Row]
            if let cardID {
                rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT \(StoredEvent.columnsSQL) FROM events WHERE board = ? AND card = ? AND seq < ?
                        ORDER BY seq DESC LIMIT ?
                        """,
                    arguments: [id, cardID, bound, limit])
            } else {
                rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT \(StoredEvent.columnsSQL) FROM events WHERE board = ? AND seq < ?
                        ORDER BY seq DESC LIMIT ?
                        """,
                    arguments: [id, bound, limit])
            }
            return try rows.map { (row: Row) throws(StoreError) in try StoredEvent(row: row, decoder) }
        }
    }

    /// Exactly-once: the committed event for `(user, clientID, mut)` if it is stored.
    public func committed(user: UserID, clientID: String, mut: UInt64) async throws(StoreError) -> StoredEvent? {
        guard let mut = Int64(exactly: mut) else { return nil }
        let actor = user.rawValue
        return try await read("committed") { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: "SELECT \(StoredEvent.columnsSQL) FROM events WHERE actor = ? AND client_id = ? AND mut = ?",
                    arguments: [actor, clientID, mut])
            else { return nil }
            return try StoredEvent(row: row, JSONDecoder())
        }
    }

    /// The highest mut of `(user, clientID)` committed on `board`, or nil if that client has committed nothing there.
    public func lastMutation(user: UserID, clientID: String, board: BoardID) async throws(StoreError) -> UInt64? {
        let name = user.rawValue
        let board = board.rawValue
        let last = try await read("last mutation") { db in
            try Int64.fetchOne(
                db, sql: "SELECT last_mut FROM client_boards WHERE user = ? AND client_id = ? AND board = ?",
                arguments: [name, clientID, board])
        }
        return try last.map { (value: Int64) throws(StoreError) in try StoreCoding.uint64(value, "last_mut") }
    }
}
