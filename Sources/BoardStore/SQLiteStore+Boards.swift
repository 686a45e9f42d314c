import BoardCore
import Foundation
import GRDB

extension SQLiteStore {
    /// Every board, archived ones included, with its head seq and epoch, ordered by id.
    public func boards() async throws(StoreError) -> [BoardRecord] {
        try await read("boards") { db in
            try Row.fetchAll(db, sql: "SELECT id, name, head, epoch, archived_at FROM boards ORDER BY id").map {
                (row: Row) throws(StoreError) in
                let archivedAt: Int64? = try StoreCoding.column(row, 4)
                return BoardRecord(
                    id: BoardID(try StoreCoding.column(row, 0) as String),
                    name: try StoreCoding.column(row, 1),
                    seq: try StoreCoding.uint64(try StoreCoding.column(row, 2), "head"),
                    epoch: try StoreCoding.column(row, 3),
                    archived: archivedAt != nil)
            }
        }
    }

    /// Archives a board (it stays in the store, with all its data) or brings it back; `.notFound` if there is no
    /// such board. Archiving an archived board (or the reverse) changes nothing.
    public func setArchived(_ board: BoardID, _ archived: Bool, now: Timestamp) async throws(StoreError) {
        let id = board.rawValue
        try await write("\(archived ? "archive" : "unarchive") board \(id)") { db in
            try db.execute(
                sql: archived
                    ? "UPDATE boards SET archived_at = coalesce(archived_at, ?) WHERE id = ?"
                    : "UPDATE boards SET archived_at = NULL WHERE id = ?",
                arguments: archived ? [now.milliseconds, id] : [id])
            guard db.changesCount == 1 else { throw StoreError(.notFound, "no board \(id)") }
        }
        logger.debug("\(archived ? "archived" : "unarchived") board", metadata: ["board": "\(id)"])
    }

    /// Creates a board whose state is `board` with a fresh random epoch; `duplicate` if it exists.
    ///
    /// The board's state is stored as its first snapshot and its head is `board.seq` (0 for a new board).
    public func createBoard(_ board: Board) async throws(StoreError) -> BoardRecord {
        let state = try StoreCoding.json(board, StoreCoding.makeEncoder(), "board \(board.id)")
        let head = try StoreCoding.int64(board.seq, "seq")
        let epoch = StoreCoding.newEpoch()
        let id = board.id.rawValue
        let name = board.name
        try await write("create board \(id)") { db in
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM boards WHERE id = ?", arguments: [id]) ?? false {
                throw StoreError(.duplicate, "board \(id) already exists")
            }
            try db.execute(
                sql: "INSERT INTO boards (id, name, epoch, head) VALUES (?, ?, ?, ?)",
                arguments: [id, name, epoch, head])
            try db.execute(
                sql: "INSERT INTO snapshots (board, seq, state) VALUES (?, ?, ?)", arguments: [id, head, state])
        }
        logger.debug("created board", metadata: ["board": "\(id)", "epoch": "\(epoch)"])
        return BoardRecord(id: board.id, name: name, seq: board.seq, epoch: epoch)
    }

    /// The newest snapshot of a board and every event after it, in seq order; nil if there is no such board.
    ///
    /// `.corrupt` if the board has no snapshot, a stored value cannot be decoded, or the tail has a gap.
    public func load(_ board: BoardID) async throws(StoreError) -> LoadedBoard? {
        let id = board.rawValue
        let loaded = try await read("load \(id)") { db -> LoadedBoard? in
            guard let epoch = try String.fetchOne(db, sql: "SELECT epoch FROM boards WHERE id = ?", arguments: [id])
            else { return nil }
            guard
                let snapshotRow = try Row.fetchOne(
                    db, sql: "SELECT seq, state FROM snapshots WHERE board = ? ORDER BY seq DESC LIMIT 1",
                    arguments: [id])
            else { throw StoreError(.corrupt, "board \(id) has no snapshot") }
            let decoder = JSONDecoder()
            let snapshotSeq: Int64 = try StoreCoding.column(snapshotRow, 0)
            let snapshot = try StoreCoding.decode(
                Board.self, try StoreCoding.column(snapshotRow, 1), decoder, "snapshot of \(id)")
            let tail = try Row.fetchAll(
                db, sql: "SELECT \(StoredEvent.columnsSQL) FROM events WHERE board = ? AND seq > ? ORDER BY seq",
                arguments: [id, snapshotSeq]
            ).map { (row: Row) throws(StoreError) in try StoredEvent(row: row, decoder) }
            return LoadedBoard(snapshot: snapshot, epoch: epoch, tail: tail)
        }
        guard let loaded else { return nil }
        var expected = loaded.snapshot.seq + 1
        for event in loaded.tail {
            guard event.seq == expected else {
                throw StoreError(
                    .corrupt, "board \(id): the log has a gap before seq \(event.seq) (expected \(expected))")
            }
            expected += 1
        }
        return loaded
    }
}
