import Glibc
import Synchronization

/// The settings a full-screen session changed, kept where a signal handler can reach them.
struct SavedTerminal {
    /// The terminal's input descriptor, whose termios settings were changed.
    var input: Int32
    /// The descriptor the screen is written to.
    var output: Int32
    /// The termios settings before raw mode.
    var settings: termios
}

/// Restores the terminal from anywhere, including a signal handler or `exit()`.
///
/// `Terminal.withFullScreen` publishes the settings it saved here before changing anything and withdraws them when it
/// has restored them itself. `restoreNow()` uses only async-signal-safe calls (`tcsetattr`, `write`) and data that
/// was in place before, so an app may call it from its own SIGINT/SIGTERM handler before exiting; it is idempotent.
public enum TerminalRestore {
    /// The bytes that leave full-screen mode, as static data (no allocation in a signal handler).
    static let resetSequence: StaticString = "\u{1B}[0m\u{1B}[?2004l\u{1B}[?25h\u{1B}[?1049l"

    /// The address of the published `SavedTerminal`, or 0 when nothing is to be restored.
    private static let saved = Atomic<Int>(0)

    /// Registers `restoreNow` with `atexit` once, so a call to `exit()` inside a session still restores.
    private static let exitHookInstalled: Bool = {
        atexit { TerminalRestore.restoreNow() }
        return true
    }()

    /// Publishes the settings to restore. The memory is never freed, so a handler never reads freed memory.
    static func publish(input: Int32, output: Int32, settings: termios) {
        _ = exitHookInstalled
        let pointer = UnsafeMutablePointer<SavedTerminal>.allocate(capacity: 1)
        pointer.initialize(to: SavedTerminal(input: input, output: output, settings: settings))
        saved.store(Int(bitPattern: pointer), ordering: .releasing)
    }

    /// Withdraws the published settings (the session restored them itself).
    static func withdraw() {
        saved.store(0, ordering: .releasing)
    }

    /// Leaves full-screen mode and restores the saved termios settings, if a session is active; async-signal-safe.
    public static func restoreNow() {
        let address = saved.exchange(0, ordering: .acquiringAndReleasing)
        guard let pointer = UnsafeMutablePointer<SavedTerminal>(bitPattern: address) else { return }
        let savedErrno = errno
        _ = write(pointer.pointee.output, resetSequence.utf8Start, resetSequence.utf8CodeUnitCount)
        _ = withUnsafePointer(to: &pointer.pointee.settings) { tcsetattr(pointer.pointee.input, TCSAFLUSH, $0) }
        errno = savedErrno
    }
}
