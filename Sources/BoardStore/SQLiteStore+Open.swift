import Foundation
import GRDB
import Logging

extension SQLiteStore {
    /// Opens (or creates) `corkd.sqlite` in `directory`, checking an existing file first.
    ///
    /// An existing file must pass `PRAGMA quick_check` (run on a read-only connection) before anything writes to it,
    /// unless a mark shows that only a store of this kind has written it since it was last checked
    /// (`SQLiteStore+Marks.swift`); otherwise this throws `.corrupt` with a message saying what is wrong and how to
    /// recover, and leaves the file's bytes as they were. The same goes for an empty (truncated) file and for a file
    /// whose write-ahead log was deleted after a crash (`-shm` present, `-wal` missing). The store never repairs or
    /// overwrites a damaged file. `openCheck` says how the open decided.
    ///
    /// A new file is created with mode 0600 (the directory, if created, with 0700). Then the schema is migrated
    /// and, if the file is a restored `backup(to:)` copy, every board gets a new epoch.
    public static func open(
        directory: URL, configuration: Configuration = Configuration(), logger: Logger
    ) async throws(StoreError) -> SQLiteStore {
        let fileManager = FileManager.default
        do {
            try fileManager.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw StoreError(.io, "cannot create the data directory \(directory.path): \(error.localizedDescription)")
        }
        let path = directory.appendingPathComponent(fileName).path
        let exists = fileManager.fileExists(atPath: path)
        var openCheck = OpenCheck.created
        if exists {
            openCheck = try await checkExisting(path: path, configuration: configuration, logger: logger)
        }
        if !configuration.guest { removeCleanMark(path) }
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: grdbConfiguration(configuration))
        } catch {
            throw StoreError(error, context: "open \(path)")
        }
        if !exists {
            try? fileManager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
            logger.debug("created store", metadata: ["path": "\(path)"])
        }
        let store = SQLiteStore(pool: pool, configuration: configuration, logger: logger, openCheck: openCheck)
        try await store.prepareWriter()
        try await store.migrate()
        try await store.rotateEpochsIfRestored()
        if !configuration.guest {
            // From here on only the writer's checkpoints write the main file, and each stamps the mark again.
            _ = try await store.writeWithoutTransaction("mark") { _ in Self.markChecked(path) }
        }
        logger.debug("opened store", metadata: ["path": "\(path)", "new": "\(!exists)", "check": "\(openCheck)"])
        return store
    }

    /// The GRDB configuration: busy timeout, foreign keys, and (testing) the page limit on the writer.
    static func grdbConfiguration(_ configuration: Configuration) -> GRDB.Configuration {
        var config = GRDB.Configuration()
        config.label = "corkd.store"
        config.foreignKeysEnabled = true
        config.busyMode = .timeout(configuration.busyTimeoutSeconds)
        config.maximumReaderCount = 4
        return config
    }

    /// Sets the writer connection's durability pragmas and checks them, and installs its checkpoint hook (a guest
    /// turns checkpoints off instead).
    ///
    /// GRDB opens a pool in WAL mode with `synchronous=NORMAL`; the store needs `FULL` (an acknowledged change must
    /// survive power loss), so it is set here on the one writer connection, which lives as long as the pool.
    func prepareWriter() async throws(StoreError) {
        let maxPageCount = configuration.maxPageCount
        let checkpoints = self.checkpoints
        let guest = configuration.guest
        let (journal, synchronous) = try await writeWithoutTransaction("open") { db in
            if guest {
                // The owner's checkpoints keep its mark; one from here would only make its next open check.
                try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            } else if let connection = db.sqliteConnection {
                checkpoints.install(on: connection)
            }
            try db.execute(sql: "PRAGMA synchronous = FULL")
            if let maxPageCount {
                try db.execute(sql: "PRAGMA max_page_count = \(maxPageCount)")
            }
            let journal = try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? ""
            let synchronous = try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1
            return (journal, synchronous)
        }
        guard journal.lowercased() == "wal", synchronous == 2 else {
            throw StoreError(
                .internal, "open: expected journal_mode=wal and synchronous=FULL(2), got \(journal) and \(synchronous)")
        }
    }

    /// Refuses a damaged existing file before anything writes to it; see `open`.
    static func checkExisting(
        path: String, configuration: Configuration, logger: Logger
    ) async throws(StoreError) -> OpenCheck {
        let fileManager = FileManager.default
        let restore =
            "The file was left as it is. Restore a backup (one `corkd backup` made) into its place, or move it "
            + "away to start empty."
        let size = (try? fileManager.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? -1
        if size == 0 {
            throw StoreError(.corrupt, "\(path) is empty (0 bytes): it was truncated. \(restore)")
        }
        let walExisted = fileManager.fileExists(atPath: path + "-wal")
        let shmExisted = fileManager.fileExists(atPath: path + "-shm")
        if shmExisted && !walExisted {
            throw StoreError(
                .corrupt,
                "\(path)-wal is missing but \(path)-shm is present: the write-ahead log was deleted after a crash, so "
                    + "committed changes may be lost. \(restore)")
        }
        let walSize = (try? fileManager.attributesOfItem(atPath: path + "-wal")[.size] as? NSNumber)?.int64Value ?? 0
        if walSize == 0, isMarkedClean(path) {
            logger.debug("closed cleanly and unchanged since: no quick_check", metadata: ["path": "\(path)"])
            return .cleanMark
        }
        if walExisted, isMarkedChecked(path) {
            logger.debug(
                "stopped without closing, the file unchanged since its last checkpoint: no quick_check",
                metadata: ["path": "\(path)"])
            return .checkpointMark
        }
        let problems: [String]
        do {
            problems = try await quickCheck(path: path, configuration: configuration)
        } catch {
            removeLeftovers(path: path, walExisted: walExisted, shmExisted: shmExisted)
            if error.code == .corrupt {
                throw StoreError(.corrupt, "\(path) is not a usable SQLite database (\(error.message)). \(restore)")
            }
            throw error
        }
        guard problems == ["ok"] else {
            removeLeftovers(path: path, walExisted: walExisted, shmExisted: shmExisted)
            let shown = problems.prefix(5).joined(separator: "; ")
            throw StoreError(.corrupt, "\(path) failed PRAGMA quick_check: \(shown). \(restore)")
        }
        logger.debug("quick_check ok", metadata: ["path": "\(path)"])
        return .quickCheck
    }

    /// Runs `PRAGMA quick_check` on a read-only connection of its own and returns its rows (`["ok"]` when sound).
    static func quickCheck(path: String, configuration: Configuration) async throws(StoreError) -> [String] {
        var config = GRDB.Configuration()
        config.readonly = true
        config.label = "corkd.store.check"
        config.busyMode = .timeout(configuration.busyTimeoutSeconds)
        do {
            let queue = try DatabaseQueue(path: path, configuration: config)
            let rows = try await queue.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
            try queue.close()
            return rows
        } catch {
            throw StoreError(error, context: "quick_check")
        }
    }

    /// Removes the empty `-wal` and the `-shm` that the read-only check created next to a damaged file, so that the
    /// data directory looks as it did; files that existed before, or a non-empty log, are kept.
    static func removeLeftovers(path: String, walExisted: Bool, shmExisted: Bool) {
        let fileManager = FileManager.default
        let wal = path + "-wal"
        let walSize = (try? fileManager.attributesOfItem(atPath: wal)[.size] as? NSNumber)?.int64Value
        if !walExisted, walSize == 0 {
            try? fileManager.removeItem(atPath: wal)
            if !shmExisted { try? fileManager.removeItem(atPath: path + "-shm") }
        }
    }
}
