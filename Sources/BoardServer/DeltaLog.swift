import BoardCore
import NIOCore

/// The recent committed changes of one board, encoded once, for resume and gap fetches without the store.
///
/// Holds at most `capacity` entries (the `history_max` limit); older ones are dropped and a resume from before them
/// gets a snapshot.
struct DeltaLog {
    struct Entry {
        var seq: UInt64
        var line: ByteBuffer
        var activity: Activity
        var inverse: Op?
    }

    let capacity: Int
    private(set) var entries: [Entry] = []
    private var start = 0

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// The oldest seq held, or nil when empty.
    var firstSeq: UInt64? { entries.isEmpty ? nil : entries[start].seq }

    mutating func append(_ entry: Entry) {
        if entries.count < capacity {
            entries.append(entry)
        } else {
            entries[start] = entry
            start = (start + 1) % capacity
        }
    }

    /// The entry for `seq`, if held.
    func entry(_ seq: UInt64) -> Entry? {
        guard let first = firstSeq, seq >= first else { return nil }
        let offset = Int(seq - first)
        guard offset < entries.count else { return nil }
        return entries[(start + offset) % entries.count]
    }

    /// The lines for `from...to`, or nil when the log does not reach back to `from`.
    func lines(from: UInt64, to: UInt64) -> [ByteBuffer]? {
        guard from <= to else { return [] }
        guard let first = firstSeq, from >= first, entry(to) != nil else { return nil }
        return (from...to).compactMap { entry($0)?.line }
    }
}
