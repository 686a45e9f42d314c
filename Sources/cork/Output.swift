import Foundation

/// Writes to stdout and stderr without buffering, so `cork watch` lines reach a pipe at once.
enum Output {
    /// Writes `text` and a newline to stdout.
    static func line(_ text: String) { write(text + "\n") }

    /// Writes `text` to stdout as is.
    static func write(_ text: String) { FileHandle.standardOutput.write(Data(text.utf8)) }

    /// Writes raw bytes to stdout.
    static func write(_ data: Data) { FileHandle.standardOutput.write(data) }

    /// Writes `cork: message` to stderr.
    static func error(_ message: String) { standardError("cork: \(message)\n") }

    /// Writes `text` to stderr as is.
    static func standardError(_ text: String) { FileHandle.standardError.write(Data(text.utf8)) }
}
