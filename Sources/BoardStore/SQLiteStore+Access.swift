import GRDB

extension SQLiteStore {
    /// Runs `body` in one IMMEDIATE transaction on the writer thread and returns once it is committed (durable) or
    /// rolled back.
    ///
    /// Not cancellable on purpose: the caller must learn whether a write happened. On any error the transaction is
    /// rolled back explicitly (SQLite may leave it open after `SQLITE_FULL`/`SQLITE_IOERR`/`SQLITE_BUSY`), so nothing
    /// of it is written, and the error is mapped to a `StoreError` prefixed with `context`.
    func write<T: Sendable>(
        _ context: String, _ body: @escaping @Sendable (Database) throws -> T
    ) async throws(StoreError) -> T {
        try await writeWithoutTransaction(context) { db in
            var value: T?
            try db.inTransaction(.immediate) {
                value = try body(db)
                return .commit
            }
            guard let value else { throw StoreError(.internal, "\(context): the transaction returned nothing") }
            return value
        }
    }

    /// Runs `body` on the writer thread without opening a transaction; not cancellable (see `write`). Rolls back any
    /// transaction `body` leaves open after an error.
    func writeWithoutTransaction<T: Sendable>(
        _ context: String, _ body: @escaping @Sendable (Database) throws -> T
    ) async throws(StoreError) -> T {
        let pool = self.pool
        let closed = Result<T, StoreError>.failure(StoreError(.internal, "\(context): the store is closed"))
        let result: Result<T, StoreError> = await threads.write(closed: closed) {
            do {
                return .success(
                    try pool.writeWithoutTransaction { db in
                        do {
                            return try body(db)
                        } catch {
                            if db.isInsideTransaction {
                                // GRDB already rolls back in `inTransaction`; this is the belt to its braces.
                                try? db.rollback()
                            }
                            throw error
                        }
                    })
            } catch {
                return .failure(StoreError(error, context: context))
            }
        }
        return try result.get()
    }

    /// Runs `body` on a reader connection (a consistent WAL snapshot of the last commit), on a reader thread;
    /// cancellable until it starts.
    func read<T: Sendable>(
        _ context: String, _ body: @escaping @Sendable (Database) throws -> T
    ) async throws(StoreError) -> T {
        let pool = self.pool
        do {
            return try await threads.read { try pool.read(body) }
        } catch {
            throw StoreError(error, context: context)
        }
    }
}
