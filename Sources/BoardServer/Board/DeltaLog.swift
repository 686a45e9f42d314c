import BoardCore
import DequeModule
import NIOCore

/// The recent committed changes of one board, encoded once, for resume and gap fetches without the store.
///
/// Holds at most `capacity` entries (the `history_max` limit) and at most `byteCapacity` bytes of delta lines (the
/// `history_bytes` limit; always at least the newest entry); older ones are dropped and a resume from before them
/// gets a snapshot. Each entry's line owns its bytes: it must not be a slice of a larger buffer (a commit batch's
/// shared fan-out buffer), which it would keep alive whole.
///
/// The entries are a `Deque`: when a new board's log outgrows its storage, the entries move into the larger one.
/// NIO's `CircularBuffer` copied them (a retain of every line, activity and inverse, then a release of the old
/// copies), which was 2.6 % of corkd's CPU in the 100-board closed loop on fresh boards.
struct DeltaLog {
    struct Entry {
        var seq: UInt64
        var line: ByteBuffer
        var activity: Activity
        var inverse: Op?
    }

    let capacity: Int
    let byteCapacity: Int
    private(set) var entries = Deque<Entry>()
    /// The bytes of every entry's line.
    private(set) var bytes = 0

    init(capacity: Int, byteCapacity: Int = .max) {
        self.capacity = max(1, capacity)
        self.byteCapacity = max(1, byteCapacity)
    }

    /// The oldest seq held, or nil when empty.
    var firstSeq: UInt64? { entries.first?.seq }

    mutating func append(_ entry: Entry) {
        entries.append(entry)
        bytes += entry.line.readableBytes
        while entries.count > capacity || (bytes > byteCapacity && entries.count > 1) {
            bytes -= entries.removeFirst().line.readableBytes
        }
    }

    /// Puts `older` (ascending and contiguous, ending just before the oldest entry held) in front of the entries
    /// held; then the limits apply as for `append`, dropping the oldest. Does nothing when `older` does not end there.
    mutating func prepend(_ older: [Entry]) {
        guard let last = older.last else { return }
        if let first = firstSeq, last.seq + 1 != first { return }
        var merged = DeltaLog(capacity: capacity, byteCapacity: byteCapacity)
        for entry in older { merged.append(entry) }
        for entry in entries { merged.append(entry) }
        self = merged
    }

    /// The entry for `seq`, if held.
    func entry(_ seq: UInt64) -> Entry? {
        guard let first = firstSeq, seq >= first else { return nil }
        let offset = seq - first
        guard offset < UInt64(entries.count) else { return nil }
        return entries[entries.index(entries.startIndex, offsetBy: Int(offset))]
    }

    /// The lines for `from...to`, or nil when the log does not reach back to `from`.
    func lines(from: UInt64, to: UInt64) -> [ByteBuffer]? {
        guard from <= to else { return [] }
        guard let first = firstSeq, from >= first, entry(to) != nil else { return nil }
        return (from...to).compactMap { entry($0)?.line }
    }
}
