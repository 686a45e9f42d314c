import CorkApp
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `write(2)` (inside `Output` the name is taken by its own functions).
private func posixWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(descriptor, bytes, count)
    #else
    Darwin.write(descriptor, bytes, count)
    #endif
}

/// Writes to stdout and stderr without buffering, so `cork watch` lines reach a pipe at once.
///
/// Output that cannot be written never crashes cork: a failed stdout (a full disk, a closed descriptor) ends it with
/// exit 1 and a line on stderr saying which; a failed stderr is ignored. A reader that goes away (`cork watch | head
/// -1`) ends cork quietly with SIGPIPE, like any Unix tool (NIO ignores the signal for its sockets, so cork restores
/// it first).
enum Output {
    /// Whether cork started with stdout closed (`cork show >&-`); set once, before anything else runs.
    nonisolated(unsafe) private static var stdoutClosed = false
    /// Whether cork started with stdin closed (`cork import - <&-`); set once, before anything else runs.
    nonisolated(unsafe) private(set) static var stdinClosed = false

    /// Puts /dev/null on each of descriptors 0–2 that cork started without, so that no socket or file cork opens
    /// becomes its "stdout" and receives its output; a closed stdout is remembered and reported on the first write.
    static func holdStandardDescriptors() {
        for descriptor in Int32(0)...2 where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            if descriptor == STDOUT_FILENO { stdoutClosed = true }
            if descriptor == STDIN_FILENO { stdinClosed = true }
            let null = open("/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY)
            if null >= 0 && null != descriptor {
                dup2(null, descriptor)
                close(null)
            }
        }
    }

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
        let failure: Int32? = stdoutClosed ? EBADF : data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = posixWrite(STDOUT_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
        guard let failure else { return }
        switch failure {
        case EPIPE:
            signal(SIGPIPE, SIG_DFL)
            raise(SIGPIPE)
            exit(1)
        case EBADF:
            standardError("cork: cannot write to stdout: it is closed\n")
        case ENOSPC:
            standardError("cork: cannot write to stdout: no space left on its device\n")
        default:
            standardError("cork: cannot write to stdout: \(String(cString: strerror(failure)))\n")
        }
        exit(1)
    }

    /// Writes `cork: message` to stderr.
    static func error(_ message: String) { standardError("cork: \(message)\n") }

    /// Writes `text` to stderr as is.
    static func standardError(_ text: String) { try? FileHandle.standardError.write(contentsOf: Data(text.utf8)) }
}
