/// A failure with a short snake_case code (counted in "errors by code") and a message.
struct LoadError: Error, Sendable, CustomStringConvertible {
    var code: String
    var message: String

    init(_ code: String, _ message: String) {
        self.code = code
        self.message = message
    }

    var description: String { "\(code): \(message)" }
}
