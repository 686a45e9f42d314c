import BoardCore
import Foundation
import GRDB
import Logging

/// The embedded store: one SQLite file (`corkd.sqlite`) in the data directory, opened with GRDB.
///
/// WAL mode with `synchronous=FULL`, so a commit is durable when `append` returns; `foreign_keys=ON`; a busy timeout
/// (default 5 s) after which a write fails with `.busy`. Every database access runs on the store's own threads (one
/// writer, two for reads: `StoreThreads`), never on the caller's thread, so NIO event loops and Swift's
/// cooperative pool are never blocked. Writes are
/// not cancellable: once started, a write runs to its commit or its rollback and the caller learns which.
public struct SQLiteStore: BoardStore {
    /// The database file's name in the data directory.
    public static let fileName = "corkd.sqlite"

    /// The connection pool (one writer, several WAL readers).
    let pool: DatabasePool
    /// The settings the store was opened with.
    public let configuration: Configuration
    /// Trace/debug logging of store events.
    let logger: Logger
    /// The one writer's queue: hand-overs waiting to share the next transaction (group commit across boards; see `submit`).
    let appends = CommitQueue()
    /// The writer's checkpoint hook, which keeps `corkd.sqlite.checked` up to date (see `CheckpointMarker`).
    let checkpoints: CheckpointMarker
    /// How the open decided the file was sound.
    public let openCheck: OpenCheck
    /// The threads every access to `pool` runs on.
    let threads: StoreThreads
    /// The file this store opened (device and inode): a file put in its place or removed while the store runs is
    /// noticed before the next commit (``replacement()``).
    let opened: FileIdentity?

    /// The database file's location.
    public var path: String { pool.path }

    init(pool: DatabasePool, configuration: Configuration, logger: Logger, openCheck: OpenCheck) {
        self.pool = pool
        self.configuration = configuration
        self.logger = logger
        self.openCheck = openCheck
        // Two reader threads: as many reads at once as corkd's two cores run, and a test process that opens a
        // hundred stores at once starts two hundred threads fewer (the pool may keep more reader connections).
        self.threads = StoreThreads(readers: min(2, pool.configuration.maximumReaderCount))
        self.opened = FileIdentity(pool.path)
        self.checkpoints = CheckpointMarker(path: pool.path, opened: opened, pages: configuration.checkpointPages)
    }

    /// Why the path no longer names the file this store opened (another file was put there, or it was removed), or
    /// nil. Commits into the opened file would be lost with it, so none is made once this says so.
    func replacement() -> String? {
        guard let opened, FileIdentity(path) != opened else { return nil }
        return "\(path) was replaced or removed while corkd used it (a restore with corkd running?): nothing more is "
            + "written, and what was committed since went to the file corkd had open; stop corkd and start it again "
            + "on the file in place"
    }

    /// Closes the read-only connections (each keeps a page cache: about 87 KiB each after a burst of subscriptions
    /// opened all of them); one in use closes when its read ends, and the next read opens one again. The writer's
    /// cache stays: it is the commit path's.
    public func releaseIdleMemory() {
        pool.invalidateReadOnlyConnections()
    }

    /// Checkpoints the write-ahead log into the database file and closes the connections; later calls on this
    /// store (or its copies) fail. After it returns, `corkd.sqlite` alone holds every commit, and the clean-close
    /// mark says so. A guest only closes its connections (SQLite checkpoints when the last connection to the file
    /// closes). Optional: dropping the last copy of the store closes it too, without the marks (SQLite's own
    /// checkpoint at the last close writes the file, so the next open checks it).
    public func close() async throws(StoreError) {
        let path = self.path
        // No read is inside the pool while it closes, and none enters it after.
        await threads.endReads()
        if configuration.guest {
            do {
                try pool.close()
            } catch {
                throw StoreError(error, context: "close")
            }
            return
        }
        // The checkpointer's last checkpoint (and mark) first: nothing writes the file or the mark after this one.
        checkpoints.stop()
        _ = try await writeWithoutTransaction("checkpoint") { db in
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            Self.removeCheckedMark(path)
        }
        do {
            try pool.close()
        } catch {
            throw StoreError(error, context: "close")
        }
        checkpoints.release()
        if let replaced = replacement() {
            // Not the file this store wrote: the next open checks it (no mark vouches for it). A file removed with
            // its directory (nothing in its place) leaves nothing to vouch for or to say.
            Self.removeCleanMark(path)
            Self.removeCheckedMark(path)
            if FileManager.default.fileExists(atPath: path) { throw StoreError(.io, replaced) }
            return
        }
        Self.markClean(path)
    }
}
