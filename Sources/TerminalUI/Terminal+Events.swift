import Foundation
import Glibc
import Synchronization

extension Terminal {
    /// Runs `body` with a stream of key, resize and signal events, and stops reading when `body` ends.
    ///
    /// One dedicated thread blocks in `poll()` on the input and on a self-pipe written by the SIGWINCH / SIGINT /
    /// SIGTERM / SIGHUP handlers installed for the scope (the previous handlers come back afterwards), so an idle
    /// terminal uses no CPU. The only timed wait is `escapeTimeout` after a lone ESC, before it is reported as
    /// `.escape`. The thread shares nothing but the stream's continuation and the pipes; the scope wakes it through a
    /// pipe and waits for it to end before closing them. (A blocking `poll()` inside a task would hold a thread of
    /// the cooperative pool, and deadlocks the app when that pool has a single thread.)
    public func withEvents<Result>(
        escapeTimeout: Duration = .milliseconds(25),
        isolation: isolated (any Actor)? = #isolation,
        _ body: (AsyncStream<TerminalEvent>) async throws -> Result
    ) async throws -> Result {
        let (events, continuation) = AsyncStream.makeStream(of: TerminalEvent.self)
        let wake = try SelfPipe()
        let signals = try SelfPipe()
        let handlers = try SignalHandlers(writingTo: signals.writeEnd)
        defer {
            handlers.uninstall()
            signals.close()
            wake.close()
        }
        let pump = EventPump(
            terminal: self, signalFD: signals.readEnd, wakeFD: wake.readEnd,
            escapeTimeoutMilliseconds: Int32(clamping: escapeTimeout.components.seconds * 1000
                + escapeTimeout.components.attoseconds / 1_000_000_000_000_000))
        let (finished, finishedContinuation) = AsyncStream.makeStream(of: Never.self)
        let thread = Thread {
            pump.run(continuation)
            finishedContinuation.finish()
        }
        thread.name = "TerminalUI.events"
        thread.start()
        func stop() async {
            wake.notify()
            for await _ in finished {}
        }
        do {
            let result = try await body(events)
            await stop()
            return result
        } catch {
            await stop()
            throw error
        }
    }
}

/// A non-blocking, close-on-exec pipe used to wake a `poll()`.
struct SelfPipe: Sendable {
    /// The end `poll()` watches.
    let readEnd: Int32
    /// The end a signal handler or the scope writes one byte to.
    let writeEnd: Int32

    /// Opens the pipe.
    init() throws(TerminalError) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            throw TerminalError(.systemCallFailed, operation: "pipe", errno: errno)
        }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        readEnd = fds[0]
        writeEnd = fds[1]
    }

    /// Writes one byte, waking whoever polls the read end.
    func notify() {
        var byte: UInt8 = 0
        _ = write(writeEnd, &byte, 1)
    }

    /// Closes both ends.
    func close() {
        _ = Glibc.close(readEnd)
        _ = Glibc.close(writeEnd)
    }
}

/// The descriptor the signal handlers write the signal number to, or -1 when none is installed.
private let signalPipeWriteEnd = Atomic<Int32>(-1)

/// The C signal handler: writes the signal number to the self-pipe (async-signal-safe: an atomic load and `write`).
private func forwardSignal(_ signal: Int32) {
    let fd = signalPipeWriteEnd.load(ordering: .acquiring)
    guard fd >= 0 else { return }
    let savedErrno = errno
    var byte = UInt8(truncatingIfNeeded: signal)
    _ = write(fd, &byte, 1)
    errno = savedErrno
}

/// The handlers `withEvents` installs for the signals it reports, and the ones they replaced.
struct SignalHandlers {
    /// The signals forwarded to the event stream. SIGTSTP (a `kill -TSTP`; Ctrl-Z itself arrives as a key in raw
    /// mode) is reported so the app can restore the terminal before it stops (``Terminal/suspend()``); SIGCONT so it
    /// can redraw after someone else stopped and continued it.
    static let signals: [Int32] = [SIGWINCH, SIGINT, SIGTERM, SIGHUP, SIGTSTP, SIGCONT]
    /// The actions in place before, to put back.
    private var previous: [Int32: sigaction] = [:]

    /// Installs handlers that forward the signals to `fd`.
    init(writingTo fd: Int32) throws(TerminalError) {
        signalPipeWriteEnd.store(fd, ordering: .releasing)
        for signal in Self.signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = forwardSignal
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            var old = sigaction()
            guard sigaction(signal, &action, &old) == 0 else {
                let failure = errno
                uninstall()
                throw TerminalError(.systemCallFailed, operation: "sigaction", errno: failure)
            }
            previous[signal] = old
        }
    }

    /// Puts the previous handlers back and stops forwarding.
    func uninstall() {
        for (signal, action) in previous {
            var old = action
            sigaction(signal, &old, nil)
        }
        signalPipeWriteEnd.store(-1, ordering: .releasing)
    }
}
