import BoardCore
import Foundation
import PostgresNIO

extension PostgresStore {
    /// Every board, archived ones included, with its head seq and epoch, ordered by id.
    public func boards() async throws(StoreError) -> [BoardRecord] {
        let logger = self.logger
        let rows = try await read("boards") { connection in
            var rows: [(String, String, Int64, String, Int64?)] = []
            for try await row in try await connection.query(
                "SELECT id, name, head, epoch, archived_at FROM boards ORDER BY id", logger: logger
            ).decode((String, String, Int64, String, Int64?).self) {
                rows.append(row)
            }
            return rows
        }
        return try rows.map { (row) throws(StoreError) in
            BoardRecord(
                id: BoardID(row.0), name: row.1, seq: try StoreCoding.uint64(row.2, "head"), epoch: row.3,
                archived: row.4 != nil)
        }
    }

    /// Archives a board or brings it back; `.notFound` if there is no such board.
    public func setArchived(_ board: BoardID, _ archived: Bool, now: Timestamp) async throws(StoreError) {
        let id = board.rawValue
        let logger = self.logger
        let changed = try await write("\(archived ? "archive" : "unarchive") board \(id)") { connection in
            let query: PostgresQuery =
                archived
                ? "UPDATE boards SET archived_at = coalesce(archived_at, \(now.milliseconds)) WHERE id = \(id) RETURNING id"
                : "UPDATE boards SET archived_at = NULL WHERE id = \(id) RETURNING id"
            return try await connection.query(query, logger: logger).collect().count
        }
        guard changed == 1 else { throw StoreError(.notFound, "no board \(id)") }
    }

    /// Creates a board whose state is `board` with a fresh random epoch; `duplicate` if it exists.
    public func createBoard(_ board: Board) async throws(StoreError) -> BoardRecord {
        let state = try StoreCoding.json(board, StoreCoding.makeEncoder(), "board \(board.id)")
        let head = try StoreCoding.int64(board.seq, "seq")
        let epoch = StoreCoding.newEpoch()
        let id = board.id.rawValue
        let name = board.name
        let logger = self.logger
        try await write("create board \(id)") { connection in
            let inserted = try await connection.query(
                """
                INSERT INTO boards (id, name, epoch, head) VALUES (\(id), \(name), \(epoch), \(head))
                ON CONFLICT (id) DO NOTHING RETURNING id
                """, logger: logger
            ).collect().count
            guard inserted == 1 else { throw StoreError(.duplicate, "board \(id) already exists") }
            try await connection.query(
                "INSERT INTO snapshots (board, seq, state) VALUES (\(id), \(head), \(state))", logger: logger)
        }
        logger.debug("created board", metadata: ["board": "\(id)", "epoch": "\(epoch)"])
        return BoardRecord(id: board.id, name: name, seq: board.seq, epoch: epoch)
    }

    /// The newest snapshot of a board and every event after it, in seq order; nil if there is no such board.
    /// Read in one REPEATABLE READ transaction, so a commit by another node cannot fall between the two reads.
    public func load(_ board: BoardID) async throws(StoreError) -> LoadedBoard? {
        let id = board.rawValue
        let logger = self.logger
        let rows = try await write("load \(id)") { connection -> (epoch: String, seq: Int64, state: String, tail: [EventRow])? in
            try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ", logger: logger)
            var epoch: String?
            for try await value in try await connection.query("SELECT epoch FROM boards WHERE id = \(id)", logger: logger)
                .decode(String.self)
            {
                epoch = value
            }
            guard let epoch else { return nil }
            var snapshot: (Int64, String)?
            for try await row in try await connection.query(
                "SELECT seq, state FROM snapshots WHERE board = \(id) ORDER BY seq DESC LIMIT 1", logger: logger
            ).decode((Int64, String).self) {
                snapshot = row
            }
            guard let snapshot else { throw StoreError(.corrupt, "board \(id) has no snapshot") }
            let tail = try await EventRow.fetch(
                connection,
                "SELECT \(unescaped: EventRow.columnsSQL) FROM events WHERE board = \(id) AND seq > \(snapshot.0) ORDER BY seq",
                logger: logger)
            return (epoch, snapshot.0, snapshot.1, tail)
        }
        guard let rows else { return nil }
        let decoder = JSONDecoder()
        let snapshot = try StoreCoding.decode(Board.self, rows.state, decoder, "snapshot of \(id)")
        let tail = try rows.tail.map { (row) throws(StoreError) in try row.event(decoder) }
        var expected = snapshot.seq + 1
        for event in tail {
            guard event.seq == expected else {
                throw StoreError(.corrupt, "board \(id): the log has a gap before seq \(event.seq) (expected \(expected))")
            }
            expected += 1
        }
        return LoadedBoard(snapshot: snapshot, epoch: rows.epoch, tail: tail)
    }

    /// Whether every board's head is its newest event and no board lacks a snapshot (PostgreSQL keeps its own pages
    /// whole; what can go wrong here is the store's own invariants).
    public func quickCheck() async throws(StoreError) -> Bool {
        let logger = self.logger
        return try await read("check") { connection in
            try await connection.query(
                """
                SELECT id FROM boards WHERE head <> coalesce((SELECT max(seq) FROM events WHERE events.board = boards.id), head)
                    OR NOT EXISTS (SELECT 1 FROM snapshots WHERE snapshots.board = boards.id)
                LIMIT 1
                """, logger: logger
            ).collect().isEmpty
        }
    }
}
