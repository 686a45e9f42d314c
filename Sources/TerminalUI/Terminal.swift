import Glibc

/// The I/O side of a terminal: raw mode, full-screen modes, size, output and the event stream.
///
/// Deliberately thin: decoding lives in `KeyDecoder` and drawing in `Renderer`, both pure and tested; this type only
/// moves bytes and flips modes.
public struct Terminal: Sendable {
    /// The file descriptor keys are read from.
    public let input: Int32
    /// The file descriptor the screen is written to.
    public let output: Int32

    /// Makes a terminal on standard input and output, or on the given descriptors.
    public init(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO) {
        self.input = input
        self.output = output
    }

    /// Whether both descriptors are terminals.
    public var isTerminal: Bool { isatty(input) == 1 && isatty(output) == 1 }

    /// The window size from `ioctl(TIOCGWINSZ)` on the output, or `nil` when it is not a terminal.
    public func size() -> TerminalSize? {
        var size = winsize()
        guard ioctl(output, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return nil }
        return TerminalSize(width: Int(size.ws_col), height: Int(size.ws_row))
    }

    /// Writes all of `text` to the output, retrying short writes and interruptions.
    public func write(_ text: String) throws(TerminalError) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                Glibc.write(output, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw TerminalError(.systemCallFailed, operation: "write", errno: errno)
            }
            offset += written
        }
        bytes.removeAll()
    }

    /// Runs `body` with the terminal in raw mode on the alternate screen, bracketed paste on and the cursor hidden,
    /// and restores everything afterwards, whether `body` returns or throws.
    ///
    /// The saved settings are also published to `TerminalRestore`, so a signal handler or `exit()` restores them.
    public func withFullScreen<Result>(
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Result
    ) async throws -> Result {
        var original = termios()
        guard tcgetattr(input, &original) == 0 else {
            throw TerminalError(.notATerminal, operation: "tcgetattr", errno: errno)
        }
        var raw = Terminal.rawSettings(from: original)
        TerminalRestore.publish(input: input, output: output, settings: original)
        guard tcsetattr(input, TCSAFLUSH, &raw) == 0 else {
            let failure = errno
            TerminalRestore.withdraw()
            throw TerminalError(.systemCallFailed, operation: "tcsetattr", errno: failure)
        }
        func restore() {
            TerminalRestore.withdraw()
            try? write(TerminalControl.leaveFullScreen)
            _ = tcsetattr(input, TCSAFLUSH, &original)
        }
        do {
            try write(TerminalControl.enterFullScreen)
            let result = try await body()
            restore()
            return result
        } catch {
            restore()
            throw error
        }
    }

    /// `original` in raw mode: no echo, no line discipline, no signals from keys; reads return after one byte.
    static func rawSettings(from original: termios) -> termios {
        var raw = original
        cfmakeraw(&raw)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        return raw
    }
}
