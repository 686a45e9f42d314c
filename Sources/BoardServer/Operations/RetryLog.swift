import Logging
import Synchronization

/// What a background loop that retries a failing store call writes to the log: the first failure (a warning, with
/// its error), then one reminder about once a minute while it keeps failing, and one line when the call works again.
/// A database outage of a minute is then three lines from each loop, not one every few seconds; the operator still
/// sees when it started, that it goes on, and when it ended.
final class RetryLog: Sendable {
    /// The warning, e.g. `cannot read new inbox entries; trying again`.
    let failing: String
    /// The line once it works again, e.g. `new inbox entries are read again`.
    let recovered: String
    /// How long after the last line a failure is logged again.
    let reminder: Duration
    private let state = Mutex(State())

    private struct State {
        var failures = 0
        var since: ContinuousClock.Instant?
        var lastLine: ContinuousClock.Instant?
    }

    init(_ failing: String, recovered: String, reminder: Duration = .seconds(60)) {
        self.failing = failing
        self.recovered = recovered
        self.reminder = reminder
    }

    /// The line to log for a failure at `now`, or nil while a reminder is not due. `message` replaces the first
    /// line's text (the same loop may fail at different steps).
    func failedLine(message: String? = nil, now: ContinuousClock.Instant = .now) -> String? {
        state.withLock { state in
            state.failures += 1
            guard let last = state.lastLine, let since = state.since else {
                state.since = now
                state.lastLine = now
                return message ?? failing
            }
            guard now - last >= reminder else { return nil }
            state.lastLine = now
            return "\(message ?? failing) (still failing: \(state.failures) tries in \((now - since).components.seconds) s)"
        }
    }

    /// The line to log when the call worked, or nil when it had not failed since the last success.
    func workedLine(now: ContinuousClock.Instant = .now) -> String? {
        state.withLock { state in
            defer { state = State() }
            guard state.failures > 0, let since = state.since else { return nil }
            return "\(recovered) after \(state.failures) failed tries in \((now - since).components.seconds) s"
        }
    }

    /// Logs a failure (a warning) when ``failedLine(message:now:)`` says to.
    func failed(_ error: Any, _ logger: Logger, message: String? = nil, metadata: Logger.Metadata = [:]) {
        guard let line = failedLine(message: message) else { return }
        var metadata = metadata
        metadata["error"] = "\(error)"
        logger.warning("\(line)", metadata: metadata)
    }

    /// Logs the recovery (info) after failures.
    func worked(_ logger: Logger) {
        if let line = workedLine() { logger.info("\(line)") }
    }
}
