import BoardCore
import Foundation
import Logging
import PostgresNIO

/// One `events` row as PostgreSQL returns it, decoded into a `StoredEvent` outside the connection.
struct EventRow: Sendable {
    /// The columns `fetch` selects, in order.
    static let columnsSQL = "board, seq, at, actor, client_id, mut, op, activity, inverse, undo_of"

    var board: String
    var seq: Int64
    var at: Int64
    var actor: String
    var clientID: String?
    var mut: Int64?
    var op: String
    var activity: String
    var inverse: String?
    var undoOf: Int64?

    /// The rows of `query`, which selects `columnsSQL`.
    static func fetch(_ connection: PostgresConnection, _ query: PostgresQuery, logger: Logger) async throws -> [EventRow] {
        var rows: [EventRow] = []
        for try await row in try await connection.query(query, logger: logger).decode(
            (String, Int64, Int64, String, String?, Int64?, String, String, String?, Int64?).self)
        {
            rows.append(
                EventRow(
                    board: row.0, seq: row.1, at: row.2, actor: row.3, clientID: row.4, mut: row.5, op: row.6,
                    activity: row.7, inverse: row.8, undoOf: row.9))
        }
        return rows
    }

    /// The stored event; `.corrupt` if a column holds the wrong thing.
    func event(_ decoder: JSONDecoder) throws(StoreError) -> StoredEvent {
        StoredEvent(
            board: BoardID(board), seq: try StoreCoding.uint64(seq, "seq"), at: Timestamp(milliseconds: at),
            actor: UserID(actor), clientID: clientID,
            mut: try mut.map { (m: Int64) throws(StoreError) in try StoreCoding.uint64(m, "mut") },
            op: try StoreCoding.decode(Op.self, op, decoder, "op"),
            activity: try StoreCoding.decode(Activity.self, activity, decoder, "activity"),
            inverse: try inverse.map { (text: String) throws(StoreError) in try StoreCoding.decode(Op.self, text, decoder, "inverse") },
            undoOf: try undoOf.map { (u: Int64) throws(StoreError) in try StoreCoding.uint64(u, "undo_of") })
    }
}

extension PostgresStore {
    /// Events with `from <= seq <= to`, ascending, at most `limit` (none when `limit <= 0` or `from > to`).
    public func events(_ board: BoardID, from: UInt64, to: UInt64, limit: Int) async throws(StoreError) -> [StoredEvent] {
        guard limit > 0, from <= to, let low = Int64(exactly: from) else { return [] }
        let high = Int64(clamping: to)
        let id = board.rawValue
        let logger = self.logger
        let rows = try await read("events of \(id)") { connection in
            try await EventRow.fetch(
                connection,
                """
                SELECT \(unescaped: EventRow.columnsSQL) FROM events WHERE board = \(id) AND seq BETWEEN \(low) AND \(high)
                ORDER BY seq LIMIT \(limit)
                """, logger: logger)
        }
        let decoder = JSONDecoder()
        return try rows.map { (row) throws(StoreError) in try row.event(decoder) }
    }

    /// Activity paging backwards: events with `seq < before` (nil = newest), only those about `card` when given,
    /// newest first, at most `limit`.
    public func history(_ board: BoardID, card: CardID?, before: UInt64?, limit: Int) async throws(StoreError) -> [StoredEvent] {
        guard limit > 0 else { return [] }
        let bound = before.map { Int64(clamping: $0) } ?? Int64.max
        let id = board.rawValue
        let cardID = card?.rawValue
        let logger = self.logger
        let rows = try await read("history of \(id)") { connection in
            if let cardID {
                return try await EventRow.fetch(
                    connection,
                    """
                    SELECT \(unescaped: EventRow.columnsSQL) FROM events WHERE board = \(id) AND card = \(cardID)
                    AND seq < \(bound) ORDER BY seq DESC LIMIT \(limit)
                    """, logger: logger)
            }
            return try await EventRow.fetch(
                connection,
                """
                SELECT \(unescaped: EventRow.columnsSQL) FROM events WHERE board = \(id) AND seq < \(bound)
                ORDER BY seq DESC LIMIT \(limit)
                """, logger: logger)
        }
        let decoder = JSONDecoder()
        return try rows.map { (row) throws(StoreError) in try row.event(decoder) }
    }

    /// Exactly-once: the committed event for `(user, clientID, mut)` if it is stored.
    public func committed(user: UserID, clientID: String, mut: UInt64) async throws(StoreError) -> StoredEvent? {
        guard let mut = Int64(exactly: mut) else { return nil }
        let actor = user.rawValue
        let logger = self.logger
        let rows = try await read("committed") { connection in
            try await EventRow.fetch(
                connection,
                """
                SELECT \(unescaped: EventRow.columnsSQL) FROM events
                WHERE actor = \(actor) AND client_id = \(clientID) AND mut = \(mut)
                """, logger: logger)
        }
        return try rows.first?.event(JSONDecoder())
    }

    /// The highest mut of `(user, clientID)` committed on `board`, or nil.
    public func lastMutation(user: UserID, clientID: String, board: BoardID) async throws(StoreError) -> UInt64? {
        let name = user.rawValue
        let id = board.rawValue
        let logger = self.logger
        let last = try await read("last mutation") { connection -> Int64? in
            var last: Int64?
            for try await value in try await connection.query(
                "SELECT last_mut FROM client_boards WHERE username = \(name) AND client_id = \(clientID) AND board = \(id)",
                logger: logger
            ).decode(Int64.self) {
                last = value
            }
            return last
        }
        return try last.map { (value: Int64) throws(StoreError) in try StoreCoding.uint64(value, "last_mut") }
    }
}
