/// How far apart two words are, for "did you mean" suggestions (the query language's filters, corkd.toml's keys):
/// the optimal-string-alignment edit distance, counting insertions, deletions, substitutions and adjacent swaps.
public enum EditDistance {
    public static func between(_ a: String, _ b: String) -> Int {
        let x = Array(a), y = Array(b)
        if x.isEmpty || y.isEmpty { return max(x.count, y.count) }
        var previous = [Int](repeating: 0, count: y.count + 1)
        var current = Array(0...y.count)
        var before = current
        for i in 1...x.count {
            before = previous
            previous = current
            current = [Int](repeating: 0, count: y.count + 1)
            current[0] = i
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] {
                    current[j] = min(current[j], before[j - 2] + 1)
                }
            }
        }
        return current[y.count]
    }
}
