import BoardCore
import Foundation
import Logging
import PostgresNIO

/// A lease on PostgreSQL: an exclusive session-level advisory lock on a connection of its own. It lives as long as
/// that connection, so a node killed or cut off from the database lets go of it, and another node takes it.
final class PostgresLease: Lease {
    /// The advisory lock's key for each lease ("corkadmn", "corkhook", "corkinbx").
    static func key(_ name: LeaseName) -> Int64 {
        switch name {
        case .admin: 0x636F_726B_6164_6D6E
        case .hooks: 0x636F_726B_686F_6F6B
        case .inbox: 0x636F_726B_696E_6278
        }
    }
    /// How long `isHeld` waits for the connection to answer before it counts the lease as lost.
    static let answerTimeout: Duration = .seconds(2)

    private let connection: PostgresConnection
    private let logger: Logger

    init(_ connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    func isHeld() async -> Bool {
        guard !connection.isClosed else { return false }
        let connection = self.connection
        let logger = self.logger
        return await withTaskGroup(of: Bool?.self) { group in
            group.addTask {
                do {
                    try await connection.query("SELECT 1", logger: logger)
                    return true
                } catch {
                    return false
                }
            }
            group.addTask {
                try? await Task.sleep(for: Self.answerTimeout)
                return Task.isCancelled ? nil : false
            }
            defer { group.cancelAll() }
            while let answer = await group.next() {
                if let answer { return answer }
            }
            return false
        }
    }

    func release() async {
        await PostgresStore.unlockAndClose(connection)
    }
}

extension PostgresStore: SharedStore {
    public func takeLease(_ name: LeaseName) async throws(StoreError) -> (any Lease)? {
        let connection = try await dedicatedConnection("\(name) lease")
        do {
            var taken = false
            for try await value in try await connection.query(
                "SELECT pg_try_advisory_lock(\(PostgresLease.key(name)))", logger: logger
            ).decode(Bool.self) {
                taken = value
            }
            guard taken else {
                try? await connection.close()
                return nil
            }
            return PostgresLease(connection, logger: logger)
        } catch {
            try? await connection.close()
            throw StoreError(postgres: error, context: "\(name) lease")
        }
    }

    public func newestCommandID() async throws(StoreError) -> Int64 {
        let logger = self.logger
        return try await read("newest admin command") { connection in
            var newest: Int64 = 0
            for try await id in try await connection.query("SELECT coalesce(max(id), 0) FROM admin", logger: logger)
                .decode(Int64.self)
            {
                newest = id
            }
            return newest
        }
    }

    public func commands(after id: Int64, limit: Int) async throws(StoreError) -> [AdminLogEntry] {
        let logger = self.logger
        let rows = try await read("admin commands") { connection in
            var rows: [(Int64, String, Int64?, String?)] = []
            for try await row in try await connection.query(
                "SELECT id, command, done_at, failure FROM admin WHERE id > \(id) ORDER BY id LIMIT \(limit)",
                logger: logger
            ).decode((Int64, String, Int64?, String?).self) {
                rows.append(row)
            }
            return rows
        }
        let decoder = JSONDecoder()
        return try rows.map { (row) throws(StoreError) in
            let command = try StoreCoding.decode(AdminCommand.self, row.1, decoder, "admin command")
            let outcome: AdminOutcome =
                if row.2 == nil {
                    .pending
                } else if let failure = row.3 {
                    .failed(try StoreCoding.decode(AdminFailure.self, failure, decoder, "admin failure"))
                } else {
                    .done
                }
            return AdminLogEntry(id: row.0, command: command, outcome: outcome)
        }
    }

    public func boardRecord(_ id: BoardID) async throws(StoreError) -> BoardRecord? {
        let key = id.rawValue
        let logger = self.logger
        let rows = try await read("board \(key)") { connection in
            var rows: [(String, Int64, String, Int64?)] = []
            for try await row in try await connection.query(
                "SELECT name, head, epoch, archived_at FROM boards WHERE id = \(key)", logger: logger
            ).decode((String, Int64, String, Int64?).self) {
                rows.append(row)
            }
            return rows
        }
        guard let row = rows.first else { return nil }
        return BoardRecord(id: id, name: row.0, seq: try StoreCoding.uint64(row.1, "head"), epoch: row.2, archived: row.3 != nil)
    }
}
