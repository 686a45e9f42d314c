import ArgumentParser

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// corkd's own output: plain `write(2)` calls that report failure instead of trapping.
///
/// A daemon must never die of its output: stdout may be `/dev/full`, closed, or a pipe whose reader has gone
/// (`FileHandle.write` traps on all three). The server ignores a failed write; an admin command whose result
/// (an invite URL) cannot be written says so on stderr and exits non-zero.
enum Console {
    /// Writes `text` to stdout; false if not all of it could be written.
    @discardableResult
    static func out(_ text: String) -> Bool { put(text, to: STDOUT_FILENO) }

    /// Writes `text` to stderr; false if not all of it could be written.
    @discardableResult
    static func error(_ text: String) -> Bool { put(text, to: STDERR_FILENO) }

    /// Writes an admin command's result to stdout; when it cannot be written, says so on stderr and exits 1 (the
    /// result, such as an invite URL with its token, would be lost).
    static func result(_ text: String) throws {
        guard out(text) else {
            error("corkd: cannot write the result to stdout (errno \(errno))\n")
            throw ExitCode(1)
        }
    }

    /// Writes all of `text` to `fd`, retrying after EINTR and short writes; false on any other failure.
    static func put(_ text: String, to fd: Int32) -> Bool {
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return false
                }
            }
            return true
        }
    }

    /// Prepares the process before anything else runs: SIGPIPE ignored (a write to a pipe without a reader fails
    /// with EPIPE instead of killing the process), file descriptors 0–2 open (a closed one is pointed at
    /// `/dev/null`, or the next file opened, such as the store, would become "stdout"), and the umask 077, so that
    /// every file corkd creates in its data directory (the store and SQLite's `-wal`/`-shm` included) is private.
    static func prepareProcess() {
        signal(SIGPIPE, SIG_IGN)
        for fd in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            let null = open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY)
            if null >= 0 && null != fd {
                dup2(null, fd)
                close(null)
            }
        }
        umask(0o077)
    }
}
