import BoardTransport
import NIOPosix

/// A failure with a short snake_case code (counted in "errors by code") and a message.
struct LoadError: Error, Sendable, CustomStringConvertible {
    var code: String
    var message: String

    init(_ code: String, _ message: String) {
        self.code = code
        self.message = message
    }

    var description: String { "\(code): \(message)" }

    /// `error` in words: a `LoadError`'s message, a failed connect or a lost connection as `cork` says them.
    static func describe(_ error: any Error) -> String {
        if let error = error as? LoadError { return error.description }
        if error is NIOConnectionError { return "cannot connect: " + ConnectionWords.dialFailure(error) }
        return ConnectionWords.sessionEnd(error)
    }
}
