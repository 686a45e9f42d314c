import GRDB

extension StoreError {
    /// Maps any error thrown while using the database to a `StoreError`; `StoreError`s pass through unchanged.
    ///
    /// `context` says what was being done, e.g. `append`; it prefixes the message.
    init(_ error: any Error, context: String) {
        if let error = error as? StoreError {
            self = error
            return
        }
        if let error = error as? DatabaseError {
            let detail = error.message ?? "\(error.resultCode)"
            self.init(
                StoreError.code(for: error.extendedResultCode),
                "\(context): \(detail) (SQLite error \(error.extendedResultCode.rawValue))")
            return
        }
        if error is CancellationError {
            self.init(.internal, "\(context): cancelled")
            return
        }
        self.init(.internal, "\(context): \(error)")
    }

    /// The store code for an SQLite (extended) result code.
    static func code(for extended: ResultCode) -> Code {
        switch extended {
        case .SQLITE_CONSTRAINT_PRIMARYKEY, .SQLITE_CONSTRAINT_UNIQUE: return .duplicate
        case .SQLITE_CONSTRAINT_FOREIGNKEY: return .notFound
        default: break
        }
        return switch extended.primaryResultCode {
        case .SQLITE_FULL: .full
        case .SQLITE_BUSY, .SQLITE_LOCKED: .busy
        case .SQLITE_CORRUPT, .SQLITE_NOTADB: .corrupt
        case .SQLITE_IOERR, .SQLITE_CANTOPEN, .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_PROTOCOL: .io
        default: .internal
        }
    }
}
