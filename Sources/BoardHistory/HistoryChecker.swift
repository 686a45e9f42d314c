/// Decides, per board, whether a recorded history kept every promise of RELIABILITY.md's history checker.
///
/// Properties (each a ``Violation/Property``):
/// - **ordered**: on one connection, delta seqs strictly increase;
/// - **unique**: no connection receives a seq twice, and no seq means two different ops (in one epoch);
/// - **reliable**: after a snapshot at seq s, a connection receives s+1, s+2, … without a gap;
/// - **resumable**: after a resume from s, the first delta is s+1 (exactly the missing seqs follow);
/// - **atomic**: one op is one delta: the same (client, mut) never appears at two seqs;
/// - **durable**: every acknowledged op is in the final store at its acknowledged seq;
/// - **resolved**: every sent op was applied, or rejected for a reason the client caused (``clientCausedCodes``):
///   a resend refused as `stale_mut`, or an op left without an answer, is lost;
/// - **converged**: every replica ends at the server's final seq with the server's hash;
/// - **derived**: what the server derives from the log (an inbox entry per mention, a recurring card's next
///   occurrence per close, a reminder per card due) was stored once and whole for each change that called for it,
///   and nothing else was: none lost to a crash, none doubled by deriving again after a restart.
///
/// Pure: records in, verdict out.
public struct HistoryChecker: Sendable {
    /// Reject codes a client causes, so that a rejected op is answered, not lost. Retryable codes (`rate_limited`,
    /// `storage_busy`, `storage_full`, `internal`) and `stale_mut` are not: the client must get its op through.
    public static let clientCausedCodes: Set<String> = [
        "bad_request", "invalid", "not_found", "forbidden", "conflict", "gone", "unknown_op", "bad_json",
        "invalid_utf8", "depth_exceeded", "duplicate_key", "wip_limit", "too_large",
    ]

    /// One broken promise.
    public struct Violation: Hashable, Sendable, CustomStringConvertible {
        /// Which promise.
        public enum Property: String, Hashable, Sendable, CaseIterable {
            case ordered, unique, reliable, resumable, atomic, durable, resolved, converged, derived
        }

        /// The promise.
        public var property: Property
        /// The board.
        public var board: String
        /// What was seen.
        public var detail: String

        public var description: String { "\(board): \(property.rawValue): \(detail)" }
    }

    /// The outcome of a check.
    public struct Verdict: Sendable {
        /// Every violation found, in the order found.
        public var violations: [Violation] = []
        /// Acknowledged ops (with a seq of their own).
        public var ackedOps = 0
        /// Resends recorded.
        public var resends = 0
        /// Deltas received, over every connection.
        public var deltas = 0
        /// Derived items checked (the expected keys of `derived` records).
        public var derivedChecked = 0
        /// Data lost: acked ops missing after recovery, gaps, duplicate deliveries, lost ops and hash mismatches.
        public var dataLost: Int { violations.count }
        /// Violations by property.
        public var byProperty: [Violation.Property: Int] {
            violations.reduce(into: [:]) { $0[$1.property, default: 0] += 1 }
        }
    }

    /// Makes a checker.
    public init() {}

    /// Checks every board of `records`.
    public func check(_ records: [HistoryRecord]) -> Verdict {
        var verdict = Verdict()
        let boards = Dictionary(grouping: records, by: \.board)
        for board in boards.keys.sorted() {
            check(board: board, boards[board]!, into: &verdict)
        }
        return verdict
    }

    private struct OpKey: Hashable, CustomStringConvertible {
        var client: String
        var mut: UInt64
        var description: String { "\(client)#\(mut)" }
    }

    private struct Stream {
        var last: UInt64
        var resumed: Bool
        var sawDelta = false
    }

    private func check(board: String, _ records: [HistoryRecord], into verdict: inout Verdict) {
        func flag(_ property: Violation.Property, _ detail: String) {
            verdict.violations.append(Violation(property: property, board: board, detail: detail))
        }
        var streams: [String: Stream] = [:]
        var opAtSeq: [String: [UInt64: OpKey]] = [:]  // by epoch
        var seqOfOp: [OpKey: UInt64] = [:]
        var sent: [OpKey] = []
        var sentSet: Set<OpKey> = []
        var acked: [OpKey: UInt64] = [:]
        var answered: Set<OpKey> = []
        var lastReject: [OpKey: String] = [:]
        var final: HistoryRecord?
        var replicas: [HistoryRecord] = []
        var derived: [HistoryRecord] = []

        for record in records {
            switch record.t {
            case .sent:
                guard let client = record.client, let mut = record.mut else { continue }
                let key = OpKey(client: client, mut: mut)
                if record.resend == true { verdict.resends += 1 }
                if sentSet.insert(key).inserted { sent.append(key) }
            case .ack:
                guard let client = record.client, let mut = record.mut else { continue }
                let key = OpKey(client: client, mut: mut)
                answered.insert(key)
                guard record.noop != true, let seq = record.seq else { continue }
                if let earlier = acked[key], earlier != seq {
                    flag(.atomic, "\(key) acked at seq \(earlier) and at seq \(seq)")
                } else if acked[key] == nil {
                    verdict.ackedOps += 1
                }
                acked[key] = seq
            case .reject:
                guard let client = record.client, let mut = record.mut, let code = record.code else { continue }
                let key = OpKey(client: client, mut: mut)
                lastReject[key] = code
                if Self.clientCausedCodes.contains(code) { answered.insert(key) }
            case .start:
                guard let client = record.client, let conn = record.conn, let seq = record.seq else { continue }
                streams["\(client)/\(conn)"] = Stream(last: seq, resumed: record.resume == true)
            case .delta:
                guard let client = record.client, let conn = record.conn, let seq = record.seq else { continue }
                verdict.deltas += 1
                let name = "\(client)/\(conn)"
                if var stream = streams[name] {
                    if seq == stream.last {
                        flag(.unique, "\(name) received seq \(seq) twice")
                    } else if seq < stream.last {
                        flag(.ordered, "\(name) received seq \(seq) after \(stream.last)")
                    } else if seq > stream.last + 1 {
                        let property: Violation.Property = stream.resumed && !stream.sawDelta ? .resumable : .reliable
                        flag(property, "\(name) jumped from seq \(stream.last) to \(seq) (missing \(stream.last + 1)…\(seq - 1))")
                    }
                    stream.last = max(stream.last, seq)
                    stream.sawDelta = true
                    streams[name] = stream
                } else {
                    flag(.reliable, "\(name) received seq \(seq) before any snapshot or resume")
                    streams[name] = Stream(last: seq, resumed: false, sawDelta: true)
                }
                if let origin = record.origin, let mut = record.mut {
                    let key = OpKey(client: origin, mut: mut)
                    let epoch = record.epoch ?? ""
                    if let other = opAtSeq[epoch]?[seq], other != key {
                        flag(.unique, "seq \(seq) is \(other) on one connection and \(key) on another")
                    }
                    opAtSeq[epoch, default: [:]][seq] = key
                    if let earlier = seqOfOp[key], earlier != seq {
                        flag(.atomic, "\(key) was delivered as seq \(earlier) and as seq \(seq)")
                    }
                    seqOfOp[key] = seq
                }
            case .replica:
                replicas.append(record)
            case .final:
                final = record
            case .derived:
                derived.append(record)
            }
        }
        for record in derived {
            verdict.derivedChecked += record.expected?.count ?? 0
            checkDerived(record, flag: flag)
        }

        guard let final else {
            if !acked.isEmpty { flag(.durable, "no final read-back of the store: durability is unchecked") }
            return
        }
        var durable: [OpKey: UInt64] = [:]
        for entry in final.applied ?? [] {
            let key = OpKey(client: entry.client, mut: entry.mut)
            if let earlier = durable[key] { flag(.atomic, "\(key) is stored at seq \(earlier) and at seq \(entry.seq)") }
            durable[key] = entry.seq
        }
        for (key, seq) in acked.sorted(by: { $0.value < $1.value }) {
            switch durable[key] {
            case nil: flag(.durable, "\(key) was acked at seq \(seq) and is not in the store")
            case let stored? where stored != seq: flag(.durable, "\(key) was acked at seq \(seq) but is stored at seq \(stored)")
            default: break
            }
        }
        for key in sent where !answered.contains(key) && durable[key] == nil {
            let why = lastReject[key].map { "its last answer was \($0)" } ?? "it never got an answer"
            flag(.resolved, "\(key) was sent and is neither applied nor rejected for a client's reason: \(why)")
        }
        for replica in replicas {
            let who = replica.client ?? "?"
            if replica.seq != final.seq {
                flag(.converged, "\(who)'s replica is at seq \(replica.seq.map(String.init) ?? "?"), the server at \(final.seq.map(String.init) ?? "?")")
            } else if replica.hash != final.hash {
                flag(.converged, "\(who)'s replica hash \(replica.hash ?? "?") differs from the server's \(final.hash ?? "?")")
            }
        }
    }

    /// Each expected key stored exactly once and whole; nothing stored that was not expected.
    private func checkDerived(_ record: HistoryRecord, flag: (Violation.Property, String) -> Void) {
        let what = record.what ?? "derived"
        var counts: [String: Int] = [:]
        for key in record.found ?? [] { counts[key, default: 0] += 1 }
        let expected = record.expected ?? []
        for key in expected {
            switch counts[key] ?? 0 {
            case 0: flag(.derived, "\(what) \(key) was never stored")
            case 1: break
            case let n: flag(.derived, "\(what) \(key) was stored \(n) times")
            }
        }
        let wanted = Set(expected)
        for key in counts.keys.sorted() where !wanted.contains(key) {
            flag(.derived, "\(what) \(key) was stored though no change called for it")
        }
        for key in record.partial ?? [] { flag(.derived, "\(what) \(key) was stored incomplete") }
    }
}
