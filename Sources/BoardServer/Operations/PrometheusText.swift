/// Reads values out of a Prometheus text exposition (for tests, and for ``ServerMetrics/value(of:)``).
public enum PrometheusText {
    /// The value of the sample line whose name and labels are exactly `series` (e.g. `corkd_ops_applied_total` or
    /// `corkd_connections{state="authenticated"}`), or nil when no line has them.
    public static func value(of series: String, in text: String) -> Double? {
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), line[..<space] == series[...] else { continue }
            return Double(line[line.index(after: space)...])
        }
        return nil
    }
}
