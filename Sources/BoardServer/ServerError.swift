/// A fault that stops the server from starting or serving (bad data directory, corrupt store, port in use).
public struct ServerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of fault.
    public var code: Code
    /// A sentence for the operator.
    public var message: String

    /// Makes an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The kinds of fault.
    public enum Code: String, Hashable, Sendable {
        /// The store cannot be opened, locked or written (a lock is held, the disk fails).
        case storage
        /// The database could not be reached at start (PostgreSQL down or not answering): corkd exits 1, so that a
        /// service manager starts it again, rather than 2, a refusal that retrying cannot help.
        case unreachable
        /// What is stored is damaged: a board's snapshot cannot be decoded, its log does not replay, or the
        /// database file fails its check. corkd refuses to serve it (exit 2) and never writes to it; restore a backup.
        case damaged
        /// The configuration is unusable (missing certificate, bad address).
        case configuration
        /// The listener could not start.
        case network
    }

    /// `code: message`.
    public var description: String { "\(code.rawValue): \(message)" }
}
