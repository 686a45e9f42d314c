import BoardCore

/// A board's reminder lead time as typed (`cork board remind`, `/board remind`): hours before a card's due day
/// (`48` or `48h`), or `default` for the server's.
public enum RemindHours {
    /// The hours, or nil for `default`.
    public static func parse(_ text: String) throws(CorkFailure) -> Int? {
        let trimmed = text.trimmingSpaces.lowercased()
        if trimmed == "default" { return nil }
        if let number = Int(trimmed.hasSuffix("h") ? String(trimmed.dropLast()) : trimmed), Limits.remindHoursRange.contains(number) {
            return number
        }
        throw CorkFailure.usage(
            "hours must be \(Limits.remindHoursRange.lowerBound)–\(Limits.remindHoursRange.upperBound) or `default`, not \(text)")
    }
}
