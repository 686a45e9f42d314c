import BoardTransport
import BoardWire
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a child process ended.
public struct ProcessExit: Sendable, CustomStringConvertible {
    /// `.exit` for a normal exit, `.uncaughtSignal` when a signal killed it.
    public var reason: Process.TerminationReason
    /// The exit status, or the signal number.
    public var status: Int32

    /// Exited normally with status 0.
    public var isSuccess: Bool { reason == .exit && status == 0 }

    public var description: String { reason == .exit ? "exit status \(status)" : "killed by signal \(status)" }
}

/// A child process (the real `corkd`, `python3`, `openssl`, `sqlite3`) whose output goes to files, with bounded waits.
///
/// Not `Sendable`: one task owns it. Whoever makes one must call `killAndReap()` on every path (the scoped helpers
/// `withCorkd` and `SpawnedProcess.run` do).
public final class SpawnedProcess {
    public let process: Process
    public let standardOutputURL: URL
    public let standardErrorURL: URL
    private let input: Pipe?

    /// Launches `executable` with `arguments`; stdout and stderr go to `name.out` / `name.err` in `logDirectory`.
    /// `environment`, when given, is the child's whole environment (default: this process's). `unprivileged` runs
    /// it as ``Unprivileged/user`` when the tests run as root (the project's own binaries always are).
    public init(
        executable: URL, arguments: [String], logDirectory: URL, name: String, withInput: Bool = false,
        environment: [String: String]? = nil, unprivileged: Bool = false
    ) throws {
        SpawnedProcess.ignoreSIGPIPE
        try ProcessGate.requirePermit(for: executable.lastPathComponent)
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw TestFailure("\(executable.path) is missing or not executable")
        }
        try FileManager.default.createDirectory(at: logDirectory, withIntermediateDirectories: true)
        standardOutputURL = logDirectory.appendingPathComponent("\(name).out")
        standardErrorURL = logDirectory.appendingPathComponent("\(name).err")
        guard FileManager.default.createFile(atPath: standardOutputURL.path, contents: nil),
            FileManager.default.createFile(atPath: standardErrorURL.path, contents: nil)
        else { throw TestFailure("cannot create log files in \(logDirectory.path)") }
        let out = try FileHandle(forWritingTo: standardOutputURL)
        let err = try FileHandle(forWritingTo: standardErrorURL)
        defer {
            try? out.close()
            try? err.close()
        }
        process = Process()
        let command = unprivileged ? try Unprivileged.command(executable, arguments) : (executable: executable, arguments: arguments)
        process.executableURL = command.executable
        process.arguments = command.arguments
        // corkd reads /etc/corkd/corkd.toml when it exists (an installed package's): a test's corkd reads only the
        // configuration the test gives it.
        var childEnvironment = environment ?? ProcessInfo.processInfo.environment
        if executable.lastPathComponent == "corkd", childEnvironment["CORKD_CONFIG"] == nil {
            childEnvironment["CORKD_CONFIG"] = "/dev/null"
        }
        process.environment = childEnvironment
        process.standardOutput = out
        process.standardError = err
        if withInput {
            let pipe = Pipe()
            process.standardInput = pipe
            input = pipe
        } else {
            process.standardInput = FileHandle.nullDevice
            input = nil
        }
        try process.run()
    }

    /// Writing to a child that has exited must fail with EPIPE, not kill the test run.
    private static let ignoreSIGPIPE: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    public var pid: Int32 { process.processIdentifier }

    /// How the process ended when this type reaped it itself (see `isRunning`).
    private var reaped: ProcessExit?

    /// Whether the process still runs. Foundation's `Process` learns of an exit from SIGCHLD and was seen to miss it
    /// with the whole suite running: a command "did not finish" long after it had ended, and the zombie it left made
    /// Swift Testing's exit-test monitor (which waits for any child) spin for ever. So a child Foundation still calls
    /// running is also asked with `waitpid(WNOHANG)`, which reaps it once it has ended.
    public var isRunning: Bool {
        guard reaped == nil, process.isRunning else { return false }
        var status: Int32 = 0
        guard waitpid(process.processIdentifier, &status, WNOHANG) == process.processIdentifier else { return true }
        // The wait status: the low 7 bits are the signal that ended it (0 for an exit), the next byte the exit code.
        let signal = status & 0x7f
        reaped = signal == 0 ? ProcessExit(reason: .exit, status: (status >> 8) & 0xff) : ProcessExit(reason: .uncaughtSignal, status: signal)
        return false
    }

    /// How the process ended, once it has.
    private var exit: ProcessExit {
        reaped ?? ProcessExit(reason: process.terminationReason, status: process.terminationStatus)
    }

    /// What the process wrote to stdout so far.
    public var standardOutput: String { (try? String(contentsOf: standardOutputURL, encoding: .utf8)) ?? "" }
    /// What the process wrote to stderr so far.
    public var standardError: String { (try? String(contentsOf: standardErrorURL, encoding: .utf8)) ?? "" }

    /// Sends `signal` (SIGTERM, SIGKILL, …) if the process still runs.
    public func send(signal number: Int32) {
        if isRunning { _ = kill(process.processIdentifier, number) }
    }

    /// Writes `text` to the process's stdin (only for processes made `withInput`).
    public func write(_ text: String) throws {
        guard let input else { throw TestFailure("the process was started without stdin") }
        try input.fileHandleForWriting.write(contentsOf: Data(text.utf8))
    }

    /// Closes the process's stdin (end of input).
    public func closeInput() {
        try? input?.fileHandleForWriting.close()
    }

    /// How the process ended, or nil if it still runs after `timeout`.
    public func waitForExit(timeout: Duration) async -> ProcessExit? {
        let deadline = ContinuousClock.now + timeout
        while isRunning {
            if ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return exit
    }

    /// Waits until stdout contains `text`; false when `timeout` passes or the process exits first without it.
    public func waitForOutput(containing text: String, timeout: Duration) async -> Bool {
        await wait(until: { $0.standardOutput.contains(text) }, timeout: timeout)
    }

    /// Waits until stderr (its log) contains `text`; false when `timeout` passes or the process exits first without it.
    public func waitForStandardError(containing text: String, timeout: Duration) async -> Bool {
        await wait(until: { $0.standardError.contains(text) }, timeout: timeout)
    }

    private func wait(until done: (SpawnedProcess) -> Bool, timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if done(self) { return true }
            if !isRunning { return done(self) }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// How the process ended, or nil if it still runs after `timeout`, waiting on this thread (for `defer` blocks and
    /// other synchronous code; async code uses `waitForExit`). Never Foundation's `waitUntilExit()`, which has no
    /// bound and learns of the end from a blocking `waitpid` on one thread that every `Process` shares.
    public func waitForExitBlocking(timeout: Duration) -> ProcessExit? {
        let deadline = ContinuousClock.now + timeout
        while isRunning {
            if ContinuousClock.now >= deadline { return nil }
            usleep(10_000)
        }
        return exit
    }

    /// SIGKILLs the process if it still runs and waits (bounded, synchronously) until it is reaped.
    public func killAndReap() {
        closeInput()
        guard isRunning else { return }
        _ = kill(process.processIdentifier, SIGKILL)
        let deadline = ContinuousClock.now + .seconds(5)
        while isRunning, ContinuousClock.now < deadline { usleep(5_000) }
    }

    /// The result of a short-lived command.
    public struct Result: Sendable {
        public var exit: ProcessExit
        public var standardOutput: String
        public var standardError: String
    }

    /// Runs a command to completion, bounded by `timeout` (then it is killed and this throws). `environment`,
    /// when given, is the child's whole environment; `unprivileged` as for `init`.
    public static func run(
        _ executable: URL, _ arguments: [String], input: String? = nil, timeout: Duration = .seconds(20),
        logDirectory: URL, name: String, environment: [String: String]? = nil, unprivileged: Bool = false
    ) async throws -> Result {
        let child = try SpawnedProcess(
            executable: executable, arguments: arguments, logDirectory: logDirectory, name: name,
            withInput: input != nil, environment: environment, unprivileged: unprivileged)
        defer { child.killAndReap() }
        if let input {
            try? child.write(input)
            child.closeInput()
        }
        guard let exit = await child.waitForExit(timeout: timeout) else {
            throw TestFailure(
                "\(executable.lastPathComponent) \(arguments.joined(separator: " ")) did not finish within \(timeout); "
                    + "stderr: \(child.standardError.suffix(2000))")
        }
        return Result(exit: exit, standardOutput: child.standardOutput, standardError: child.standardError)
    }

    /// The executable `name` on `PATH`, or a failure that names it.
    public static func tool(_ name: String) throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw TestFailure("\(name) is not on PATH (\(path)); it is needed for this test")
    }
}
