import BoardCore
import Foundation
import GRDB

extension SQLiteStore {
    /// Queues a command for the running server; returns its id (ids only grow, never reused). Inviting a user as a
    /// bot also makes the user a bot account (see `markBotAccount`).
    public func enqueue(_ command: AdminCommand, now: Timestamp) async throws(StoreError) -> Int64 {
        try await enqueue([command], now: now)[0]
    }

    /// Queues commands in one transaction; returns their ids in order. Bot invites mark bot accounts, as `enqueue`
    /// of one command does.
    public func enqueue(_ commands: [AdminCommand], now: Timestamp) async throws(StoreError) -> [Int64] {
        let encoder = StoreCoding.makeEncoder()
        var texts: [String] = []
        texts.reserveCapacity(commands.count)
        for command in commands { texts.append(try StoreCoding.json(command, encoder, "admin command")) }
        let rows = texts
        return try await write("enqueue \(rows.count) admin command(s)") { db in
            var ids: [Int64] = []
            ids.reserveCapacity(rows.count)
            for (command, text) in zip(commands, rows) {
                try SQLiteStore.markBotAccount(command, in: db)
                try db.execute(
                    sql: "INSERT INTO admin (command, created_at) VALUES (?, ?)", arguments: [text, now.milliseconds])
                ids.append(db.lastInsertedRowID)
            }
            return ids
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
        try await finish([(id, nil)])
    }

    /// Marks commands done in one transaction, each with its failure (nil: applied). A command already done keeps
    /// its first outcome; `.notFound` if one of them does not exist.
    public func finish(_ results: [(id: Int64, failure: AdminFailure?)]) async throws(StoreError) {
        let updates = try StoreCoding.outcomes(results)
        try await write("finish \(updates.count) admin command(s)") { db in
            for (id, failure) in updates {
                try db.execute(
                    sql: """
                        UPDATE admin SET failure = CASE WHEN done_at IS NULL THEN ? ELSE failure END,
                            done_at = coalesce(done_at, \(SQLiteStore.nowMillisecondsSQL)) WHERE id = ?
                        """,
                    arguments: [failure, id])
                guard db.changesCount == 1 else { throw StoreError(.notFound, "no admin command \(id)") }
            }
        }
    }

    /// Where each of the commands stands; `.notFound` if one of them does not exist.
    public func outcomes(_ ids: [Int64]) async throws(StoreError) -> [Int64: AdminOutcome] {
        try await read("admin outcomes") { db in
            let decoder = JSONDecoder()
            var outcomes: [Int64: AdminOutcome] = [:]
            for id in ids {
                guard let row = try Row.fetchOne(db, sql: "SELECT done_at, failure FROM admin WHERE id = ?", arguments: [id])
                else { throw StoreError(.notFound, "no admin command \(id)") }
                let doneAt: Int64? = try StoreCoding.column(row, 0)
                let failure: String? = try StoreCoding.column(row, 1)
                if doneAt == nil {
                    outcomes[id] = .pending
                } else if let failure {
                    outcomes[id] = .failed(try StoreCoding.decode(AdminFailure.self, failure, decoder, "admin failure"))
                } else {
                    outcomes[id] = .done
                }
            }
            return outcomes
        }
    }
}
