import BoardCore
import Foundation
import Logging
import PostgresNIO

extension PostgresStore: StoreImport {
    /// Whether the database has no board, user or token.
    public func isEmpty() async throws(StoreError) -> Bool {
        let logger = self.logger
        return try await read("check the store is empty") { connection in
            try await connection.query(
                """
                SELECT 1 WHERE EXISTS (SELECT 1 FROM boards) OR EXISTS (SELECT 1 FROM users) OR EXISTS (SELECT 1 FROM tokens)
                """, logger: logger
            ).collect().isEmpty
        }
    }

    /// Inserts users and tokens in one transaction; `.duplicate` if one exists.
    public func importAccounts(users: [StoredUser], tokens: [StoredToken]) async throws(StoreError) {
        let logger = self.logger
        try await write("import \(users.count) user(s) and \(tokens.count) token(s)") { connection in
            for user in users {
                try await connection.query(
                    """
                    INSERT INTO users (name, display, created_at, account)
                    VALUES (\(user.name.rawValue), \(user.displayName), \(user.createdAt), \(user.account))
                    """, logger: logger)
            }
            for token in tokens {
                try await connection.query(
                    """
                    INSERT INTO tokens (hash, username, created_at, expires_at, revoked_at)
                    VALUES (\(token.hash), \(token.user.rawValue), \(token.createdAt.milliseconds),
                    \(token.expiresAt?.milliseconds), \(token.revokedAt?.milliseconds))
                    """, logger: logger)
            }
        }
    }

    /// Inserts a board with its epoch, events and snapshots in one transaction (the events go through `append`'s
    /// checks and keep the client marks); archived when the record says so.
    public func importBoard(
        _ record: BoardRecord, snapshots: [Board], events: [StoredEvent], now: Timestamp
    ) async throws(StoreError) {
        guard let oldest = snapshots.first else { throw StoreError(.corrupt, "board \(record.id) has no snapshot to copy") }
        // The head before the first event: 0 for a board made at seq 0, else right before its first event.
        let start = try StoreCoding.int64(events.first.map { $0.seq - 1 } ?? oldest.seq, "seq")
        let id = record.id.rawValue
        let archivedAt: Int64? = record.archived ? now.milliseconds : nil
        let json = configuration.eventJSON
        let kept = max(configuration.snapshotsKept, snapshots.count)
        let logger = self.logger
        // Events in batches, each through `append`'s checks; the snapshots with the last batch.
        let chunks = stride(from: 0, to: max(events.count, 1), by: 1000).map { Array(events[$0..<min($0 + 1000, events.count)]) }
        var batches: [EncodedBatch] = []
        for (index, chunk) in chunks.enumerated() {
            batches.append(try EncodedBatch(events: chunk, snapshots: index == chunks.count - 1 ? snapshots : [], eventJSON: json))
        }
        let encoded = batches
        try await write("import board \(id)") { connection in
            let inserted = try await connection.query(
                """
                INSERT INTO boards (id, name, epoch, head, archived_at) VALUES (\(id), \(record.name), \(record.epoch),
                \(start), \(archivedAt)) ON CONFLICT (id) DO NOTHING RETURNING id
                """, logger: logger
            ).collect().count
            guard inserted == 1 else { throw StoreError(.duplicate, "board \(id) already exists") }
            for batch in encoded {
                try await Self.append(batch, snapshotsKept: kept, connection, logger: logger)
            }
        }
    }
}
