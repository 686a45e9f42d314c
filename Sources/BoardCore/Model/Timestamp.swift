/// A point in time: milliseconds since 1970-01-01T00:00:00Z, as the server's clock saw it.
///
/// The core never reads a clock: timestamps arrive as inputs in `ApplyContext`.
public struct Timestamp: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// Milliseconds since the Unix epoch.
    public var milliseconds: Int64

    /// Wraps a count of milliseconds since the Unix epoch.
    public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    /// The calendar day (UTC) this instant falls on.
    public var day: Day {
        let days = milliseconds >= 0 ? milliseconds / 86_400_000 : (milliseconds - 86_399_999) / 86_400_000
        return Day(daysSinceEpoch: Int(days))
    }

    /// The timestamp in milliseconds, as text.
    public var description: String { String(milliseconds) }

    /// Orders by time.
    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.milliseconds < rhs.milliseconds }

    /// Decodes from a JSON integer.
    public init(from decoder: any Decoder) throws {
        milliseconds = try decoder.singleValueContainer().decode(Int64.self)
    }

    /// Encodes as a JSON integer.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(milliseconds)
    }
}
