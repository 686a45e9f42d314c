import BoardCore
import Foundation
import GRDB

extension SQLiteStore {
    /// Queues a command for the running server; returns its id (ids only grow, never reused). Inviting a user as a
    /// bot also makes the user a bot account (see `markBotAccount`).
    public func enqueue(_ command: AdminCommand, now: Timestamp) async throws(StoreError) -> Int64 {
        let text = try StoreCoding.json(command, StoreCoding.makeEncoder(), "admin command")
        return try await write("enqueue admin command") { db in
            try SQLiteStore.markBotAccount(command, in: db)
            try db.execute(
                sql: "INSERT INTO admin (command, created_at) VALUES (?, ?)", arguments: [text, now.milliseconds])
            return db.lastInsertedRowID
        }
    }

    /// Commands not yet marked done whose id is above `id`, oldest first.
    public func pendingCommands(after id: Int64) async throws(StoreError) -> [(id: Int64, command: AdminCommand)] {
        try await read("pending admin commands") { db in
            let decoder = JSONDecoder()
            return try Row.fetchAll(
                db, sql: "SELECT id, command FROM admin WHERE id > ? AND done_at IS NULL ORDER BY id", arguments: [id]
            ).map { (row: Row) throws(StoreError) in
                (
                    id: try StoreCoding.column(row, 0),
                    command: try StoreCoding.decode(
                        AdminCommand.self, try StoreCoding.column(row, 1), decoder, "admin command")
                )
            }
        }
    }

    /// Marks a command done so it is not handed out again (marking it twice is fine); `.notFound` if there is no
    /// such command.
    public func markDone(_ id: Int64) async throws(StoreError) {
        try await write("mark admin command \(id) done") { db in
            try db.execute(
                sql: "UPDATE admin SET done_at = coalesce(done_at, \(SQLiteStore.nowMillisecondsSQL)) WHERE id = ?",
                arguments: [id])
            guard db.changesCount == 1 else { throw StoreError(.notFound, "no admin command \(id)") }
        }
    }
}
