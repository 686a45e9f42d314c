/// The delta order one subscriber saw: each seq must be the previous one plus one, from `subscribed` on.
struct SeqCheck: Sendable {
    private(set) var last: UInt64
    private(set) var gaps = 0
    private(set) var duplicates = 0

    init(subscribedAt seq: UInt64) { last = seq }

    /// A delta arrived.
    mutating func saw(_ seq: UInt64) {
        if seq == last + 1 {
            last = seq
        } else if seq <= last {
            duplicates += 1
        } else {
            gaps += 1
            last = seq
        }
    }

    var isContiguous: Bool { gaps == 0 && duplicates == 0 }
}
