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
        /// The store is corrupt, unreadable or inconsistent.
        case storage
        /// The configuration is unusable (missing certificate, bad address).
        case configuration
        /// The listener could not start.
        case network
    }

    /// `code: message`.
    public var description: String { "\(code.rawValue): \(message)" }
}
