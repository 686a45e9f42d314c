import BoardCore

/// Why a store operation failed: a closed set of codes plus a human-readable message.
///
/// The server maps these to wire errors in one place: `.full` → `storage_full`, `.busy` → `storage_busy`
/// (retryable), everything else → `internal` (and `.corrupt` at start-up → refuse to serve).
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Code: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        /// The disk or the database is full (`SQLITE_FULL`); nothing was written. Retry once space is freed.
        case full
        /// Another connection held the lock past the busy timeout (`SQLITE_BUSY`/`SQLITE_LOCKED`); nothing was
        /// written. Retryable.
        case busy
        /// The database file is damaged or is not a database (`SQLITE_CORRUPT`/`SQLITE_NOTADB`, a failed
        /// `PRAGMA quick_check`, a truncated file or a missing write-ahead log). Restore from a backup.
        case corrupt
        /// The thing to create already exists (a board, a backup file, an already committed mutation).
        case duplicate
        /// The thing named does not exist (a user, an admin command).
        case notFound
        /// An operating-system or SQLite I/O error (`SQLITE_IOERR`, `SQLITE_CANTOPEN`, `SQLITE_READONLY`, …).
        case io
        /// A broken invariant: a seq gap, a value that cannot be encoded or decoded, an unexpected SQLite error.
        case `internal`
        /// Another node committed to the board since this node last did: the stored head (``StoreError/movedHead``)
        /// is at or past the batch's first seq, and nothing was written. Not corruption: read the events after
        /// your head, apply them, apply your ops again on top and append them under new seqs (PostgreSQL only).
        case headMoved

        /// The code's name, e.g. `full`.
        public var description: String { rawValue }
    }

    /// What kind of failure this is.
    public var code: Code
    /// What happened, for logs and operators; never contains a token.
    public var message: String
    /// For ``Code/headMoved``: the board whose head moved and the seq it is at now (nil for every other code).
    public var movedHead: (board: BoardID, seq: UInt64)? {
        guard code == .headMoved, let board = movedBoard, let seq = movedSeq else { return nil }
        return (board, seq)
    }
    private var movedBoard: BoardID?
    private var movedSeq: UInt64?
    /// For ``Code/duplicate`` from an append: the change whose `(actor, client id, mut)` is already committed (on
    /// another board: a board never hands the store a mut it has applied itself). Nil otherwise.
    public private(set) var duplicateMutation: DuplicateMutation?
    /// A client's mutation id, as `duplicateMutation` names it.
    public struct DuplicateMutation: Hashable, Sendable {
        public var actor: String
        public var clientID: String
        public var mut: UInt64
    }

    /// An append found `mut` of `actor`'s client `clientID` already committed; nothing was written.
    public static func duplicateMutation(actor: String, clientID: String?, mut: Int64?) -> StoreError {
        var error = StoreError(
            .duplicate, "append: mutation \(mut.map(String.init) ?? "-") of \(actor)/\(clientID ?? "-") is already committed")
        if let clientID, let mut, mut >= 0 { error.duplicateMutation = DuplicateMutation(actor: actor, clientID: clientID, mut: UInt64(mut)) }
        return error
    }
    /// For a write: the connection was lost while the commit was under way (PostgreSQL: `COMMIT` was sent and no
    /// answer came), so the write may be durable or not. The code is `.io`; read the stored data back to learn which.
    public private(set) var outcomeUnknown = false

    /// Makes an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// Another node committed to `board` up to `seq` since this node's last commit; nothing was written.
    public static func headMoved(_ board: BoardID, to seq: UInt64, batchStart: UInt64) -> StoreError {
        var error = StoreError(
            .headMoved, "append: board \(board) moved to seq \(seq) (another node committed); the batch starts at \(batchStart)")
        error.movedBoard = board
        error.movedSeq = seq
        return error
    }

    /// This error, marked as a write whose outcome is unknown (``outcomeUnknown``).
    public func withOutcomeUnknown() -> StoreError {
        var error = self
        error.outcomeUnknown = true
        return error
    }

    /// Whether the same call may succeed later without anyone fixing anything (`.busy` and `.full`).
    public var isRetryable: Bool { code == .busy || code == .full }

    /// `code: message`, e.g. `busy: database is locked`.
    public var description: String { "\(code): \(message)" }
}
