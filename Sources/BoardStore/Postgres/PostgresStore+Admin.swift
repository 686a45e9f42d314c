import BoardCore
import Foundation
import Logging
import PostgresNIO

extension PostgresStore {
    /// Queues a command for the running servers; returns its id (ids only grow).
    public func enqueue(_ command: AdminCommand, now: Timestamp) async throws(StoreError) -> Int64 {
        try await enqueue([command], now: now)[0]
    }

    /// Queues commands in one transaction; returns their ids in order. Bot invites mark bot accounts.
    public func enqueue(_ commands: [AdminCommand], now: Timestamp) async throws(StoreError) -> [Int64] {
        let encoder = StoreCoding.makeEncoder()
        var texts: [String] = []
        for command in commands { texts.append(try StoreCoding.json(command, encoder, "admin command")) }
        let rows = Array(zip(commands.map(\.botInvitee), texts))
        let logger = self.logger
        return try await write("enqueue \(rows.count) admin command(s)") { connection in
            var ids: [Int64] = []
            for (bot, text) in rows {
                if let bot { try await Self.markBotAccount(bot, connection, logger: logger) }
                for try await id in try await connection.query(
                    "INSERT INTO admin (command, created_at) VALUES (\(text), \(now.milliseconds)) RETURNING id",
                    logger: logger
                ).decode(Int64.self) {
                    ids.append(id)
                }
            }
            return ids
        }
    }

    /// Commands not yet marked done whose id is above `id`, oldest first.
    public func pendingCommands(after id: Int64) async throws(StoreError) -> [(id: Int64, command: AdminCommand)] {
        let logger = self.logger
        let rows = try await read("pending admin commands") { connection in
            var rows: [(Int64, String)] = []
            for try await row in try await connection.query(
                "SELECT id, command FROM admin WHERE id > \(id) AND done_at IS NULL ORDER BY id", logger: logger
            ).decode((Int64, String).self) {
                rows.append(row)
            }
            return rows
        }
        let decoder = JSONDecoder()
        return try rows.map { (row) throws(StoreError) in
            (row.0, try StoreCoding.decode(AdminCommand.self, row.1, decoder, "admin command"))
        }
    }

    /// Marks a command done; `.notFound` if there is no such command.
    public func markDone(_ id: Int64) async throws(StoreError) {
        try await finish([(id, nil)])
    }

    /// Marks commands done in one transaction, each with its failure (nil: applied); a command already done keeps
    /// its first outcome. `.notFound` if one of them does not exist.
    public func finish(_ results: [(id: Int64, failure: AdminFailure?)]) async throws(StoreError) {
        let updates = try StoreCoding.outcomes(results)
        let logger = self.logger
        try await write("finish \(updates.count) admin command(s)") { connection in
            for (id, failure) in updates {
                let changed = try await connection.query(
                    """
                    UPDATE admin SET failure = CASE WHEN done_at IS NULL THEN \(failure) ELSE failure END,
                        done_at = coalesce(done_at, \(unescaped: Self.nowMillisecondsSQL)) WHERE id = \(id) RETURNING id
                    """, logger: logger
                ).collect().count
                guard changed == 1 else { throw StoreError(.notFound, "no admin command \(id)") }
            }
        }
    }

    /// Where each of the commands stands; `.notFound` if one of them does not exist.
    public func outcomes(_ ids: [Int64]) async throws(StoreError) -> [Int64: AdminOutcome] {
        let logger = self.logger
        let rows = try await read("admin outcomes") { connection in
            var rows: [Int64: (Int64?, String?)] = [:]
            for try await row in try await connection.query(
                "SELECT id, done_at, failure FROM admin WHERE id = ANY(\(ids))", logger: logger
            ).decode((Int64, Int64?, String?).self) {
                rows[row.0] = (row.1, row.2)
            }
            return rows
        }
        let decoder = JSONDecoder()
        var outcomes: [Int64: AdminOutcome] = [:]
        for id in ids {
            guard let row = rows[id] else { throw StoreError(.notFound, "no admin command \(id)") }
            if row.0 == nil {
                outcomes[id] = .pending
            } else if let failure = row.1 {
                outcomes[id] = .failed(try StoreCoding.decode(AdminFailure.self, failure, decoder, "admin failure"))
            } else {
                outcomes[id] = .done
            }
        }
        return outcomes
    }
}

extension AdminCommand {
    /// The user an invite as a bot makes a bot account, if this is one.
    var botInvitee: String? {
        guard case .addMember(_, let user, .bot) = self else { return nil }
        return user.rawValue
    }
}
