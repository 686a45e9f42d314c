/// Which endpoint a ``ClientSession`` dials next and how long it waits first (the backoff arithmetic of its
/// connection states).
///
/// Endpoints are tried in turn. A failed dial moves on to the next endpoint at once until every endpoint has failed
/// in this round; then the session waits (exponential backoff with jitter, or the server's `retry_after_ms` when
/// longer) and starts the next round at the endpoint after the last one tried. A session that reached `welcome`
/// resets the backoff; a session that ended starts the next round with its own endpoint, after a wait.
struct EndpointRotation: Sendable {
    /// What to do after a failure.
    enum Next: Hashable, Sendable {
        /// Dial this endpoint now.
        case dial(Int)
        /// Wait `delay`, then dial `endpoint`.
        case wait(Duration, endpoint: Int)
        /// Too many failed rounds: give up.
        case giveUp
    }

    /// The number of endpoints (at least 1).
    let count: Int
    let policy: ReconnectPolicy
    /// Failed rounds in a row (reset by a `welcome`).
    private(set) var failedRounds = 0
    /// Endpoints that failed in the current round.
    private var failedInRound = 0
    /// The endpoint dialled last.
    private var current = 0
    /// Whether any session reached `welcome`, or a server answered with when to try again (`storage_busy` at
    /// login during a database outage, `server_full`): either way the endpoint and the URL are right, so the
    /// fail-fast limit before the first welcome no longer applies.
    private(set) var serverAnswered = false
    /// The largest server hint seen in this round.
    private var hint: Duration?

    init(count: Int, policy: ReconnectPolicy) {
        self.count = max(1, count)
        self.policy = policy
    }

    /// Endpoint `endpoint` is being dialled.
    mutating func dialing(_ endpoint: Int) {
        current = endpoint
    }

    /// The server said `welcome`: the endpoint works, so the backoff starts over.
    mutating func welcomed() {
        serverAnswered = true
        failedRounds = 0
        failedInRound = 0
        hint = nil
    }

    /// A dial failed.
    mutating func dialFailed(retryAfter: Duration?, random: Double) -> Next {
        if let retryAfter { hint = max(hint ?? .zero, retryAfter) }
        failedInRound += 1
        let next = (current + 1) % count
        if failedInRound < count {
            current = next
            return .dial(next)
        }
        // Every endpoint failed this round.
        let round = failedRounds
        failedRounds += 1
        failedInRound = 0
        let limit = serverAnswered ? policy.maxRounds : (policy.maxRoundsUntilConnected ?? policy.maxRounds)
        if let limit, failedRounds >= limit { return .giveUp }
        var delay = policy.delay(round: round, random: random)
        if let hint, hint > delay { delay = hint }
        hint = nil
        return .wait(delay, endpoint: next)
    }

    /// An open session ended: the endpoint was reachable, so the next round starts with it again, after a wait.
    mutating func sessionEnded(retryAfter: Duration?, random: Double) -> Next {
        if retryAfter != nil { serverAnswered = true }
        failedInRound = count - 1
        current = (current + count - 1) % count
        return dialFailed(retryAfter: retryAfter, random: random)
    }
}
