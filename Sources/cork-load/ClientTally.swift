import BoardCore
import Histogram

/// What one subscriber received, for the convergence check: from which seq to which, and the hash of the lines.
struct StreamRecord: Sendable {
    var board: Int
    var subscribedSeq: UInt64
    var lastSeq: UInt64
    var hash: StreamHash
    /// The connection was lost before the run ended: the stream stops early, and is judged only up to there.
    var lostConnection = false
}

/// A board's reference replica, kept by its first subscriber: the snapshot it subscribed with and every delta line
/// after it, replayed through BoardCore's reducer at the end (`Convergence`).
struct ReferenceLog: Sendable {
    var board: Int
    var snapshot: Board?
    var subscribedSeq: UInt64
    /// The delta lines, back to back, and where each ends.
    var bytes: [UInt8] = []
    var ends: [Int] = []
    var seqs: [UInt64] = []
    /// Set when the log outgrew `LoadPlan.replayBytesMax` and stopped.
    var truncated = false
    /// The reference subscriber lost its connection before the run ended: the log stops early.
    var lostConnection = false
}

/// What one client measured, and the merge of many.
struct ClientTally: Sendable {
    /// Ack latency (op sent → ack received) in microseconds, for ops sent in the measured window.
    var latency = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
    /// Fan-out latency (op sent → its delta received by the last subscriber of its board) in microseconds, for ops
    /// sent in the measured window.
    var fanout = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
    /// Deliveries whose fan-out slot had been reused (the subscriber was too far behind to measure).
    var fanoutOverruns = 0
    /// Ops acknowledged in the measured window, and over the whole run.
    var acked = 0
    var ackedTotal = 0
    /// Ops sent over the whole run, by kind (`purge` apart from `add`).
    var sent: [String: Int] = [:]
    /// Paced slots not sent because the server held the publisher back (`OpWindow.heldBack`).
    var slotsHeldBack = 0
    /// Paced slots never sent because the window stayed full until sending ended (`OpWindow.unsentSlots`).
    var slotsUnsent = 0
    /// Ops still unanswered when the publisher's connection ended (their latency is in no figure).
    var unanswered = 0
    /// Deltas received in the measured window, and over the whole run.
    var deliveries = 0
    var deliveriesTotal = 0
    /// Rejects and errors by code, plus the client's own failures (`connect_failed`, `closed`, `drain_timeout`, …).
    var errors: [String: Int] = [:]
    /// Line bytes received and sent.
    var bytes = ByteCounts()
    /// Publishers and subscribers that reached `welcome`/`subscribed`, and that ran to the end.
    var publishersConnected = 0
    var publishersCompleted = 0
    var subscribersConnected = 0
    var subscribersCompleted = 0
    /// Subscribers whose deltas had a gap or a repeat.
    var seqBroken = 0
    var gaps = 0
    var duplicates = 0
    /// The users the server authenticated, and the per-user op rate it advertised.
    var users: Set<String> = []
    var rateOpsPerS: Int?
    var streams: [StreamRecord] = []
    var references: [ReferenceLog] = []

    /// The clients that did not connect or lost their connection, each named with why (`ClientFailure`).
    var failed: [String] = []

    /// Counts an error code.
    mutating func count(_ code: String) { errors[code, default: 0] += 1 }

    /// Counts a client's failure under `code` and names the client with `why`.
    mutating func fail(_ code: String, client: String, _ why: String) {
        count(code)
        failed.append("\(client): \(why)")
    }

    /// Adds another client's tally.
    mutating func merge(_ other: ClientTally) {
        latency.add(other.latency)
        fanout.add(other.fanout)
        fanoutOverruns += other.fanoutOverruns
        acked += other.acked
        ackedTotal += other.ackedTotal
        sent.merge(other.sent, uniquingKeysWith: +)
        slotsHeldBack += other.slotsHeldBack
        slotsUnsent += other.slotsUnsent
        unanswered += other.unanswered
        deliveries += other.deliveries
        deliveriesTotal += other.deliveriesTotal
        errors.merge(other.errors, uniquingKeysWith: +)
        bytes.received += other.bytes.received
        bytes.sent += other.bytes.sent
        publishersConnected += other.publishersConnected
        publishersCompleted += other.publishersCompleted
        subscribersConnected += other.subscribersConnected
        subscribersCompleted += other.subscribersCompleted
        seqBroken += other.seqBroken
        gaps += other.gaps
        duplicates += other.duplicates
        users.formUnion(other.users)
        rateOpsPerS = rateOpsPerS ?? other.rateOpsPerS
        failed += other.failed
        streams += other.streams
        references += other.references
    }
}
