import GRDB

extension SQLiteStore {
    /// Testing: sets SQLite's `max_page_count` on the writer connection (to simulate a full disk, or to lift the
    /// limit again) and returns the limit now in force (SQLite never sets it below the current page count).
    func setMaxPageCount(_ count: Int) async throws(StoreError) -> Int {
        try await writeWithoutTransaction("set max_page_count") { db in
            try Int.fetchOne(db, sql: "PRAGMA max_page_count = \(count)") ?? 0
        }
    }

    /// Testing: the database's size in pages, as the writer sees it.
    func pageCount() async throws(StoreError) -> Int {
        try await writeWithoutTransaction("page_count") { db in try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0 }
    }

    /// Testing: the writer connection's `journal_mode`, `synchronous`, `foreign_keys` and `busy_timeout` (ms).
    func writerPragmas() async throws(StoreError) -> (journal: String, synchronous: Int, foreignKeys: Int, busy: Int) {
        try await writeWithoutTransaction("pragmas") { db in
            (
                journal: try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "",
                synchronous: try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1,
                foreignKeys: try Int.fetchOne(db, sql: "PRAGMA foreign_keys") ?? -1,
                busy: try Int.fetchOne(db, sql: "PRAGMA busy_timeout") ?? -1
            )
        }
    }
}

extension SQLiteStore {
    /// Testing: whether the writer connection is inside a transaction (it must never be between writes).
    func writerIsInTransaction() async throws(StoreError) -> Bool {
        try await writeWithoutTransaction("in transaction") { db in db.isInsideTransaction }
    }
}
