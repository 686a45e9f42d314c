/// Giving back the storage of a table that was large once.
///
/// Swift's collections keep their capacity when elements are removed: after 10,000 idle connections closed, the
/// session directory and a board's subscriber table still held storage for 10,000 sessions (about 90 bytes each
/// per table), and those blocks, live in the middle of the heap, kept freed pages around them from going back to
/// the system. Tables keyed by connection shrink once they are at most a quarter full, so the cost is amortised:
/// a table is rebuilt at most once for every three quarters of its capacity removed.
enum SparseCapacity {
    /// Below this capacity a table is left alone: small tables cost little and churn often.
    static let floor = 64

    /// Whether a collection holding `count` elements in storage for `capacity` should be rebuilt smaller.
    static func isSparse(count: Int, capacity: Int) -> Bool {
        capacity > floor && count * 4 <= capacity
    }
}

extension Dictionary {
    /// Rebuilds the dictionary with storage for its elements only, when it is at most a quarter full.
    mutating func releaseSparseCapacity() {
        guard SparseCapacity.isSparse(count: count, capacity: capacity) else { return }
        var smaller = Self(minimumCapacity: count)
        for (key, value) in self { smaller[key] = value }
        self = smaller
    }
}

extension Array {
    /// Reallocates the array with storage for its elements only, when it is at most a quarter full.
    mutating func releaseSparseCapacity() {
        guard SparseCapacity.isSparse(count: count, capacity: capacity) else { return }
        var smaller: [Element] = []  // `Array(self)` would share the old storage
        smaller.reserveCapacity(count)
        smaller.append(contentsOf: self)
        self = smaller
    }
}

extension Set {
    /// Rebuilds the set with storage for its elements only, when it is at most a quarter full.
    mutating func releaseSparseCapacity() {
        guard SparseCapacity.isSparse(count: count, capacity: capacity) else { return }
        var smaller = Self(minimumCapacity: count)
        for element in self { smaller.insert(element) }
        self = smaller
    }
}
