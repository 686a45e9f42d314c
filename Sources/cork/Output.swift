import CorkApp
import Foundation

/// Writes to stdout and stderr without buffering, so `cork watch` lines reach a pipe at once.
///
/// Output that cannot be written never crashes cork: a failed stdout (a full disk, a closed descriptor) ends it with
/// exit 1 and a line on stderr; a failed stderr is ignored. (A reader that goes away ends cork with SIGPIPE, quietly,
/// like any Unix tool.)
enum Output {
    /// Writes `text` and a newline to stdout.
    static func line(_ text: String) { write(text + "\n") }

    /// Writes `text` to stdout as is.
    static func write(_ text: String) { write(Data(text.utf8)) }

    /// A command's answer: with `json`, `value` as one JSON line; else `text` as is (whole lines, each ending in a
    /// newline).
    static func result(_ value: some Encodable, json: Bool, text: @autoclosure () -> String) {
        if json { line(CorkJSON.line(value)) } else { write(text()) }
    }

    /// Writes raw bytes to stdout.
    static func write(_ data: Data) {
        do {
            try FileHandle.standardOutput.write(contentsOf: data)
        } catch {
            standardError("cork: cannot write to stdout: \(error.localizedDescription)\n")
            exit(1)
        }
    }

    /// Writes `cork: message` to stderr.
    static func error(_ message: String) { standardError("cork: \(message)\n") }

    /// Writes `text` to stderr as is.
    static func standardError(_ text: String) { try? FileHandle.standardError.write(contentsOf: Data(text.utf8)) }
}
