/// A terminal operation that failed: what was tried and the `errno` it failed with.
public struct TerminalError: Error, Hashable, Sendable {
    /// The kinds of terminal failure.
    public enum Code: String, Hashable, Sendable {
        /// The file descriptor is not a terminal, so raw mode and size do not apply.
        case notATerminal = "not_a_terminal"
        /// A system call (termios, write, pipe, sigaction) failed.
        case systemCallFailed = "system_call_failed"
    }

    /// What kind of failure.
    public var code: Code
    /// The system call or step that failed, e.g. `tcsetattr`.
    public var operation: String
    /// The `errno` value, or 0 when there is none.
    public var errno: Int32

    /// Makes an error.
    public init(_ code: Code, operation: String, errno: Int32 = 0) {
        self.code = code
        self.operation = operation
        self.errno = errno
    }
}
