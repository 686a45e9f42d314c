/// The client's connection lifecycle as a state machine that returns actions: which endpoint to dial, how long to
/// wait, when to give up (STYLE.md 3). It owns no socket and reads no clock; the driver reports what happened and
/// does what it is told, so tests walk it with a manual clock.
///
/// Endpoints are tried in turn. A failed dial moves on to the next endpoint at once until every endpoint has failed
/// in this round; then the machine waits (exponential backoff with jitter, or the server's `retry_after_ms` when
/// longer) and starts the next round at the endpoint after the last one tried. A session that reached `welcome`
/// resets the backoff. A fatal failure (bad token, pin mismatch, no common protocol version) stops it for good.
public struct ConnectionMachine: Sendable {
    /// Where the machine is.
    public enum State: Hashable, Sendable {
        /// Not started.
        case idle
        /// Dialling `endpoint`.
        case connecting(endpoint: Int)
        /// A session is open on `endpoint` (TLS up; `welcome` may still be pending).
        case connected(endpoint: Int)
        /// Waiting until `until` (on the driver's clock) before the next dial.
        case waiting(until: Duration, endpoint: Int)
        /// Stopped: by the owner (nil) or by a fatal failure.
        case stopped(ClientError?)
    }

    /// What the driver must do next.
    public enum Action: Hashable, Sendable {
        /// Dial endpoint number `endpoint`.
        case connect(endpoint: Int)
        /// Sleep for `delay`, then call ``timerFired(now:)``.
        case wait(delay: Duration)
        /// Stop; `error` says why (nil when the owner asked).
        case stop(ClientError?)
        /// Nothing to do.
        case none
    }

    /// How a dial or a session ended.
    public struct Failure: Hashable, Sendable {
        /// The error, for the connection-state event.
        public var error: ClientError
        /// Whether retrying can help.
        public var isFatal: Bool
        /// The server's hint (`retry_after_ms` of an error or `bye`).
        public var retryAfter: Duration?

        /// A failure.
        public init(_ error: ClientError, isFatal: Bool = false, retryAfter: Duration? = nil) {
            self.error = error
            self.isFatal = isFatal
            self.retryAfter = retryAfter
        }
    }

    /// The current state.
    public private(set) var state: State = .idle
    /// The number of endpoints.
    public let endpointCount: Int
    /// The backoff policy.
    public let policy: ReconnectPolicy
    /// Failed rounds in a row (reset by a `welcome`).
    public private(set) var failedRounds = 0
    /// Endpoints that failed in the current round.
    private var failedInRound = 0
    /// The endpoint dialled last.
    private var current = 0
    /// Whether any session reached `welcome`.
    public private(set) var everWelcomed = false
    /// The largest server hint seen in this round.
    private var hint: Duration?

    /// A machine for `endpointCount` endpoints (at least 1).
    public init(endpointCount: Int, policy: ReconnectPolicy = ReconnectPolicy()) {
        self.endpointCount = max(1, endpointCount)
        self.policy = policy
    }

    /// Starts dialling the first endpoint.
    public mutating func start() -> Action {
        guard case .idle = state else { return .none }
        current = 0
        state = .connecting(endpoint: 0)
        return .connect(endpoint: 0)
    }

    /// The dial succeeded (TLS is up).
    public mutating func connected() {
        guard case .connecting(let endpoint) = state else { return }
        state = .connected(endpoint: endpoint)
    }

    /// The server said `welcome`: the endpoint works, so the backoff starts over.
    public mutating func welcomed() {
        everWelcomed = true
        failedRounds = 0
        failedInRound = 0
        hint = nil
    }

    /// The dial failed.
    public mutating func connectFailed(_ failure: Failure, now: Duration) -> Action {
        guard case .connecting = state else { return .none }
        return failed(failure, now: now)
    }

    /// An open session ended.
    public mutating func disconnected(_ failure: Failure, now: Duration) -> Action {
        guard case .connected = state else { return .none }
        // The endpoint was reachable: start the next round with it again, after a wait.
        if failure.isFatal { return stop(failure.error) }
        failedInRound = endpointCount - 1
        current = (current + endpointCount - 1) % endpointCount
        return failed(failure, now: now)
    }

    /// The wait is over.
    public mutating func timerFired(now: Duration) -> Action {
        guard case .waiting(let until, let endpoint) = state, now >= until else { return .none }
        current = endpoint
        state = .connecting(endpoint: endpoint)
        return .connect(endpoint: endpoint)
    }

    /// The owner asks to try again now (a person pressing a key while the backoff has grown): the wait ends early
    /// and the endpoint it was waiting for is dialled. Nothing while not waiting.
    public mutating func retryNow() -> Action {
        guard case .waiting(_, let endpoint) = state else { return .none }
        current = endpoint
        state = .connecting(endpoint: endpoint)
        return .connect(endpoint: endpoint)
    }

    /// The owner stops the client.
    public mutating func stop(_ error: ClientError? = nil) -> Action {
        state = .stopped(error)
        return .stop(error)
    }

    /// The random number in 0 … 1 used for the next jitter (the driver sets it; tests fix it).
    public var nextRandom: Double = 0.5

    private mutating func failed(_ failure: Failure, now: Duration) -> Action {
        if failure.isFatal { return stop(failure.error) }
        if let retry = failure.retryAfter { hint = max(hint ?? .zero, retry) }
        failedInRound += 1
        let next = (current + 1) % endpointCount
        if failedInRound < endpointCount {
            current = next
            state = .connecting(endpoint: next)
            return .connect(endpoint: next)
        }
        // Every endpoint failed this round.
        let round = failedRounds
        failedRounds += 1
        failedInRound = 0
        let limit = everWelcomed ? policy.maxRounds : (policy.maxRoundsUntilConnected ?? policy.maxRounds)
        if let limit, failedRounds >= limit { return stop(failure.error) }
        var delay = policy.delay(round: round, random: nextRandom)
        if let hint, hint > delay { delay = hint }
        hint = nil
        state = .waiting(until: now + delay, endpoint: next)
        return .wait(delay: delay)
    }
}
