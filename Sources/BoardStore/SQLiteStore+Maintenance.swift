import Foundation
import GRDB

extension SQLiteStore {
    /// The `meta` key a `backup(to:)` copy carries: the next store to open it gives every board a new epoch.
    static let restoredMarker = "restored_from_backup"

    /// Writes a consistent copy of the whole database to `url` with `VACUUM INTO`, for restores (RELIABILITY D5/D6).
    ///
    /// Writes run on while it copies (the copy is one read transaction's snapshot). The copy is made under a
    /// temporary name and renamed into place when complete, so `url` is never a partial file; `.duplicate` if `url`
    /// exists. The copy is marked so that a store opened on it after a restore gives every board a new epoch:
    /// clients then resynchronise instead of comparing seqs from the lost future. (A copy made any other way keeps
    /// its epochs; prefer this one.)
    public func backup(to url: URL) async throws(StoreError) {
        let fileManager = FileManager.default
        let target = url.path
        guard !fileManager.fileExists(atPath: target) else {
            throw StoreError(.duplicate, "backup: \(target) already exists")
        }
        let partial = target + ".partial-" + StoreCoding.newEpoch()
        do {
            try await vacuum(into: partial)
            try await SQLiteStore.markRestored(path: partial)
        } catch {
            try? fileManager.removeItem(atPath: partial)
            throw error
        }
        do {
            try fileManager.moveItem(atPath: partial, toPath: target)
        } catch {
            try? fileManager.removeItem(atPath: partial)
            throw StoreError(.io, "backup: cannot move the copy to \(target): \(error.localizedDescription)")
        }
        logger.debug("backup written", metadata: ["path": "\(target)"])
    }

    /// `VACUUM INTO path` on a reader connection: VACUUM cannot run inside a transaction, and a reader copies one
    /// consistent snapshot while the writer goes on.
    func vacuum(into path: String) async throws(StoreError) {
        do {
            let pool = self.pool
            try await threads.read {
                try pool.unsafeRead { db in try db.execute(sql: "VACUUM INTO ?", arguments: [path]) }
            }
        } catch {
            throw StoreError(error, context: "backup: VACUUM INTO \(path)")
        }
    }

    /// Sets the restore marker in a fresh copy; the commit (rollback journal, `synchronous=FULL`) syncs the file.
    static func markRestored(path: String) async throws(StoreError) {
        do {
            let queue = try DatabaseQueue(path: path)
            try await queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = FULL")
                try db.inTransaction {
                    try db.execute(
                        sql: "INSERT OR REPLACE INTO meta (key, value) VALUES (?, '1')", arguments: [restoredMarker])
                    return .commit
                }
            }
            try queue.close()
        } catch {
            throw StoreError(error, context: "backup: mark the copy")
        }
    }

    /// Runs `PRAGMA quick_check` on a reader connection; true when the database is sound.
    public func quickCheck() async throws(StoreError) -> Bool {
        let rows = try await read("quick_check") { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
        if rows != ["ok"] {
            logger.debug("quick_check failed", metadata: ["problems": "\(rows.prefix(5).joined(separator: "; "))"])
        }
        return rows == ["ok"]
    }

    /// If this file is a restored backup copy, gives every board a new epoch and removes the marker, in one
    /// transaction.
    func rotateEpochsIfRestored() async throws(StoreError) {
        let marker = SQLiteStore.restoredMarker
        let rotated = try await write("rotate epochs after restore") { db -> [String] in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM meta WHERE key = ?", arguments: [marker]) ?? false else {
                return []
            }
            let boards = try String.fetchAll(db, sql: "SELECT id FROM boards ORDER BY id")
            for board in boards {
                try db.execute(
                    sql: "UPDATE boards SET epoch = ? WHERE id = ?", arguments: [StoreCoding.newEpoch(), board])
            }
            try db.execute(sql: "DELETE FROM meta WHERE key = ?", arguments: [marker])
            return boards
        }
        if !rotated.isEmpty {
            logger.debug(
                "opened a restored backup: new epochs", metadata: ["boards": "\(rotated.joined(separator: ","))"])
        }
    }
}
