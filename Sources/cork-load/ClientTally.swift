import Histogram

/// What one client measured, and the merge of many.
struct ClientTally: Sendable {
    /// Ack latency (op sent → ack received) in microseconds, for acks received in the measured window.
    var latency = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
    /// Ops acknowledged in the measured window.
    var acked = 0
    /// Ops acknowledged over the whole run.
    var ackedTotal = 0
    /// Deltas received in the measured window.
    var deliveries = 0
    /// Deltas received over the whole run.
    var deliveriesTotal = 0
    /// Rejects and errors by code, plus the client's own failures (`connect`, `closed`, `timeout`, …).
    var errors: [String: Int] = [:]
    /// Line bytes received and sent.
    var bytes = ByteCounts()
    /// Clients that reached `subscribed` (or `welcome` for non-subscribers), and that ran to the end.
    var connected = 0
    var completed = 0
    /// Subscribed clients, and those whose deltas had a gap or a repeat.
    var subscribed = 0
    var seqBroken = 0
    var gaps = 0
    var duplicates = 0
    /// The users the server authenticated, and the per-user op rate it advertised.
    var users: Set<String> = []
    var rateOpsPerS: Int?
    /// The board's seq and card count when the first client subscribed.
    var boardSeq: UInt64?
    var boardCards: Int?

    /// Counts an error code.
    mutating func count(_ code: String) { errors[code, default: 0] += 1 }

    /// Adds another client's tally.
    mutating func merge(_ other: ClientTally) {
        latency.add(other.latency)
        acked += other.acked
        ackedTotal += other.ackedTotal
        deliveries += other.deliveries
        deliveriesTotal += other.deliveriesTotal
        errors.merge(other.errors, uniquingKeysWith: +)
        bytes.received += other.bytes.received
        bytes.sent += other.bytes.sent
        connected += other.connected
        completed += other.completed
        subscribed += other.subscribed
        seqBroken += other.seqBroken
        gaps += other.gaps
        duplicates += other.duplicates
        users.formUnion(other.users)
        rateOpsPerS = rateOpsPerS ?? other.rateOpsPerS
        boardSeq = boardSeq ?? other.boardSeq
        boardCards = boardCards ?? other.boardCards
    }
}
