import BoardCore

/// The board id `cork board create NAME` makes from a display name when no `--id` is given.
public enum BoardSlug {
    /// `name` lower-cased, letters and digits kept (ASCII), every other run of characters one `-`, trimmed of
    /// `-`, at most `Limits.idMaxLength` bytes: "Release 2026 — Q3" → `release-2026-q3`. Nil when nothing is left.
    public static func id(for name: String) -> BoardID? {
        var slug = ""
        var gap = false
        for scalar in name.lowercased().unicodeScalars {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                if gap && !slug.isEmpty { slug.append("-") }
                gap = false
                slug.unicodeScalars.append(scalar)
                if slug.utf8.count >= Limits.idMaxLength { break }
            } else {
                gap = true
            }
        }
        return slug.isEmpty ? nil : BoardID(validating: String(slug.prefix(Limits.idMaxLength)))
    }
}
