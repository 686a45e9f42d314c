/// How one ordered list of keys becomes another: which old positions leave and which new positions arrive.
///
/// The keys that stay are one longest run found in both lists in the same relative order: for unique keys a
/// longest increasing subsequence of their old positions taken in new order, which is their longest common
/// subsequence. Every other old position is removed and every other new position inserted, so a key moved one
/// step costs one removal and one insertion, not a cascade. Runs in O(n log n) for lists of n keys.
///
/// The result is a valid edit script even when keys repeat (extra copies are simply removed and inserted).
struct OrderDiff {
    /// Positions in the old list that are removed, ascending.
    var removed: [Int]
    /// Positions in the new list that are inserted, ascending.
    var inserted: [Int]
    /// Pairs of (old position, new position) that stay, ascending in both.
    var kept: [(old: Int, new: Int)]

    /// Compares `old` with `new`.
    init<Key: Hashable>(from old: [Key], to new: [Key]) {
        var oldPosition: [Key: Int] = [:]
        oldPosition.reserveCapacity(old.count)
        for (index, key) in old.enumerated() where oldPosition[key] == nil {
            oldPosition[key] = index
        }
        // (new position, old position) of every key found in both, in new order.
        var common: [(new: Int, old: Int)] = []
        for (index, key) in new.enumerated() {
            if let position = oldPosition[key] { common.append((index, position)) }
        }
        let run = OrderDiff.longestIncreasingRun(common.map(\.old))
        kept = run.map { (old: common[$0].old, new: common[$0].new) }

        var oldKept = [Bool](repeating: false, count: old.count)
        var newKept = [Bool](repeating: false, count: new.count)
        for pair in kept {
            oldKept[pair.old] = true
            newKept[pair.new] = true
        }
        removed = old.indices.filter { !oldKept[$0] }
        inserted = new.indices.filter { !newKept[$0] }
    }

    /// Indices into `values` of one longest strictly increasing subsequence (patience sorting, O(n log n)).
    static func longestIncreasingRun(_ values: [Int]) -> [Int] {
        // tails[k]: index of the smallest value ending an increasing run of length k + 1 seen so far.
        var tails: [Int] = []
        var previous = [Int](repeating: -1, count: values.count)
        for (index, value) in values.enumerated() {
            var low = 0
            var high = tails.count
            while low < high {
                let mid = (low + high) / 2
                if values[tails[mid]] < value { low = mid + 1 } else { high = mid }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var run: [Int] = []
        var index = tails.last ?? -1
        while index >= 0 {
            run.append(index)
            index = previous[index]
        }
        return run.reversed()
    }
}
