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

/// Restores the terminal from anywhere, including a signal handler, a crash or `exit()`.
///
/// `Terminal.withFullScreen` publishes the settings it saved here before changing anything and withdraws them when it
/// has restored them itself. `restoreNow()` uses only async-signal-safe calls (`tcsetattr`, `write`) and data that
/// was in place before, so an app may call it from its own SIGINT/SIGTERM handler before exiting; it is idempotent.
///
/// The first publish also installs handlers for the fatal signals (``fatalSignals``: a Swift runtime trap is SIGILL
/// or SIGTRAP, `abort()` SIGABRT, a bad access SIGSEGV or SIGBUS): each restores the terminal, puts back the action
/// that was there before (the default, or the Swift runtime's backtracer) and raises the signal again, so the
/// process still dies of it, with its crash report on the normal screen.
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

    /// The signals a crash raises, after which the terminal is restored before the process dies.
    public static let fatalSignals: [Int32] = [SIGILL, SIGTRAP, SIGABRT, SIGSEGV, SIGBUS, SIGFPE]

    /// Room for every signal number (Linux has 64).
    private static let signalSlots: Int32 = 65

    /// The address of the actions the fatal-signal handlers replaced, indexed by signal number (0: none installed).
    private static let previousActions = Atomic<Int>(0)

    /// Installs the fatal-signal handlers once.
    private static let fatalHandlersInstalled: Bool = {
        installFatalHandlers()
        return true
    }()

    /// Publishes the settings to restore. The memory is never freed, so a handler never reads freed memory.
    static func publish(input: Int32, output: Int32, settings: termios) {
        _ = exitHookInstalled
        _ = fatalHandlersInstalled
        let pointer = UnsafeMutablePointer<SavedTerminal>.allocate(capacity: 1)
        pointer.initialize(to: SavedTerminal(input: input, output: output, settings: settings))
        saved.store(Int(bitPattern: pointer), ordering: .releasing)
    }

    /// The published settings (those from before raw mode), while a full-screen session is active.
    static func savedSettings() -> termios? {
        let address = saved.load(ordering: .acquiring)
        return UnsafeMutablePointer<SavedTerminal>(bitPattern: address)?.pointee.settings
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

    /// Replaces the action of each fatal signal with one that restores the terminal first; the replaced actions are
    /// kept (in memory never freed) for the handler to put back.
    private static func installFatalHandlers() {
        let count = signalSlots
        let previous = UnsafeMutablePointer<sigaction>.allocate(capacity: Int(count))
        previous.initialize(repeating: sigaction(), count: Int(count))  // all SIG_DFL until replaced
        previousActions.store(Int(bitPattern: previous), ordering: .releasing)
        for signal in fatalSignals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = restoreThenRedeliver
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            _ = sigaction(signal, &action, previous + Int(signal))
        }
    }

    /// Puts back the action `signal` had before ``installFatalHandlers()``; async-signal-safe.
    fileprivate static func reinstallPrevious(_ signal: Int32) {
        let address = previousActions.load(ordering: .acquiring)
        if let previous = UnsafeMutablePointer<sigaction>(bitPattern: address), signal > 0, signal < signalSlots {
            _ = sigaction(signal, previous + Int(signal), nil)
        } else {
            var fallback = sigaction()
            fallback.__sigaction_handler.sa_handler = SIG_DFL
            _ = sigaction(signal, &fallback, nil)
        }
    }
}

/// The fatal-signal handler: restores the terminal, puts the previous action back and raises the signal again. The
/// signal stays blocked until the handler returns, so the raised one is delivered then, to the previous action (for a
/// fault, at the faulting instruction's context). Async-signal-safe: an atomic exchange, `write`, `tcsetattr`,
/// `sigaction`, `raise`.
private func restoreThenRedeliver(_ signal: Int32) {
    TerminalRestore.restoreNow()
    TerminalRestore.reinstallPrevious(signal)
    raise(signal)
}
