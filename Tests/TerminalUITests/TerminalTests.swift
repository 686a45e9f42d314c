import Glibc
import Testing
import TerminalUI

/// A pseudo-terminal pair: the program side (`secondary`) and the side a terminal emulator would hold (`primary`).
private struct PseudoTerminal {
    let primary: Int32
    let secondary: Int32

    init() throws {
        // posix_openpt and friends are not in the Glibc module; these are the ioctls they wrap on Linux.
        primary = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        try #require(primary >= 0)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        try #require(ioctl(primary, UInt(0x4004_5431) /* TIOCSPTLCK */, &unlock) == 0)
        try #require(ioctl(primary, UInt(0x8004_5430) /* TIOCGPTN */, &number) == 0)
        secondary = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        try #require(secondary >= 0)
        _ = fcntl(primary, F_SETFL, fcntl(primary, F_GETFL) | O_NONBLOCK)
    }

    /// Whether the program side is in canonical (cooked) mode.
    var isCanonical: Bool {
        var settings = termios()
        tcgetattr(secondary, &settings)
        return settings.c_lflag & tcflag_t(ICANON) != 0
    }

    /// Everything the program wrote so far.
    func written() -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(primary, &buffer, buffer.count)
            if count <= 0 { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    func close() {
        _ = Glibc.close(secondary)
        _ = Glibc.close(primary)
    }
}

/// Serialized: full-screen sessions publish their saved settings to one process-wide `TerminalRestore`, and signal
/// handlers are process-wide too.
@Suite(.serialized) struct TerminalTests {
    @Test func fullScreenEntersRawModeAndRestoresIt() async throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        let terminal = Terminal(input: pty.secondary, output: pty.secondary)
        #expect(terminal.isTerminal)
        #expect(pty.isCanonical)
        let rawInside = try await terminal.withFullScreen { !pty.isCanonical }
        #expect(rawInside)
        #expect(pty.isCanonical)
        let output = pty.written()
        #expect(output.hasPrefix(TerminalControl.enterFullScreen))
        #expect(output.hasSuffix(TerminalControl.leaveFullScreen))
    }

    @Test func fullScreenRestoresWhenTheBodyThrows() async throws {
        struct Failure: Error {}
        let pty = try PseudoTerminal()
        defer { pty.close() }
        await #expect(throws: Failure.self) {
            try await Terminal(input: pty.secondary, output: pty.secondary).withFullScreen { throw Failure() }
        }
        #expect(pty.isCanonical)
        #expect(pty.written().hasSuffix(TerminalControl.leaveFullScreen))
    }

    @Test func theSignalSafeRestoreWorksInsideTheScopeAndOnlyOnce() async throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        try await Terminal(input: pty.secondary, output: pty.secondary).withFullScreen {
            #expect(!pty.isCanonical)
            TerminalRestore.restoreNow()
            #expect(pty.isCanonical)
            #expect(pty.written().hasSuffix(TerminalControl.leaveFullScreen))
            TerminalRestore.restoreNow()
            #expect(pty.written() == "")
        }
    }

    /// A Swift runtime trap inside a full-screen session (the line editor's old "String index is out of bounds"):
    /// the fatal-signal handler leaves the alternate screen and shows the cursor before the process dies of it.
    @Test func aCrashInsideTheFullScreenRestoresTheTerminalFirst() async throws {
        #if arch(x86_64)
        let trap = SIGILL
        #else
        let trap = SIGTRAP
        #endif
        let result = await #expect(processExitsWith: .signal(trap), observing: [\.standardOutputContent]) {
            let pty = try PseudoTerminal()
            try await Terminal(input: pty.secondary, output: STDOUT_FILENO).withFullScreen {
                let text = "🇩"
                _ = text.index(text.startIndex, offsetBy: Int(getpid()) > 0 ? 2 : 0)
            }
        }
        let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
        #expect(output.hasPrefix(TerminalControl.enterFullScreen), "\(output.debugDescription)")
        #expect(output.hasSuffix(TerminalControl.leaveFullScreen), "\(output.debugDescription)")
    }

    @Test func anAbortInsideTheFullScreenRestoresTheTerminalFirst() async throws {
        let result = await #expect(processExitsWith: .signal(SIGABRT), observing: [\.standardOutputContent]) {
            let pty = try PseudoTerminal()
            try await Terminal(input: pty.secondary, output: STDOUT_FILENO).withFullScreen { if getpid() > 0 { abort() } }
        }
        let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
        #expect(output.hasSuffix(TerminalControl.leaveFullScreen), "\(output.debugDescription)")
    }

    @Test func theSizeComesFromTheTerminal() throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        var size = winsize(ws_row: 24, ws_col: 80, ws_xpixel: 0, ws_ypixel: 0)
        #expect(ioctl(pty.primary, UInt(TIOCSWINSZ), &size) == 0)
        #expect(Terminal(input: pty.secondary, output: pty.secondary).size() == TerminalSize(width: 80, height: 24))
        #expect(Terminal(input: -1, output: -1).size() == nil)
    }

    @Test func rawModeOnSomethingThatIsNotATerminalFails() async throws {
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        defer { fds.forEach { _ = close($0) } }
        let error = await #expect(throws: TerminalError.self) {
            try await Terminal(input: fds[0], output: fds[1]).withFullScreen {}
        }
        #expect(error?.code == .notATerminal)
    }

    @Test func eventsDeliverKeysSignalsAndTheEndOfInput() async throws {
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        defer { _ = close(fds[0]) }
        let terminal = Terminal(input: fds[0], output: fds[1])
        let events = try await terminal.withEvents { events in
            var received: [TerminalEvent] = []
            let keys = Array("a\u{1B}[1;5A\u{1B}[200~p\u{1B}[201~\u{1B}".utf8)
            _ = keys.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
            var iterator = events.makeAsyncIterator()
            while received.count < 4, let event = await iterator.next() { received.append(event) }
            kill(getpid(), SIGHUP)  // process-directed: the pool threads block signals, so raise() would not arrive
            if let event = await iterator.next() { received.append(event) }
            _ = close(fds[1])
            if let event = await iterator.next() { received.append(event) }
            return received
        }
        #expect(
            events == [
                .key(.character("a")), .key(KeyEvent(.up, .ctrl)), .key(KeyEvent(.paste("p"))), .key(KeyEvent(.escape)),
                .signal(SIGHUP), .endOfInput,
            ])
    }
}
