import BoardCore

/// Makes imported text fit what the reducer accepts: one-line names, bounded texts, no control characters.
enum ImportText {
    /// A one-line name or title: control characters become spaces, surrounding spaces go, at most `max`
    /// characters (cut with `…`); `fallback` when nothing is left. Sets `cut` when the text was shortened.
    static func line(_ text: String, max: Int, fallback: String, cut: inout Bool) -> String {
        let flat = FeedText.oneLine(text)
        if flat.isEmpty { return fallback }
        guard flat.count > max else { return flat }
        cut = true
        return String(flat.prefix(max - 1)).trimmingSpaces + "…"
    }

    /// A multi-line text: control characters other than tab, CR and LF removed, at most `maxBytes` UTF-8 bytes
    /// (cut at a character boundary, with `…`). Sets `cut` when the text was shortened.
    static func text(_ text: String, maxBytes: Int, cut: inout Bool) -> String {
        var clean = ""
        for scalar in text.unicodeScalars {
            let control = scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028
                || scalar.value == 0x2029
            if !control || scalar == "\n" || scalar == "\t" || scalar == "\r" { clean.unicodeScalars.append(scalar) }
        }
        guard clean.utf8.count > maxBytes else { return clean }
        cut = true
        let ellipsis = "…"
        var out = ""
        var bytes = 0
        for character in clean {
            let size = character.utf8.count
            if bytes + size > maxBytes - ellipsis.utf8.count { break }
            out.append(character)
            bytes += size
        }
        return out + ellipsis
    }

    /// The UTC day of a Trello timestamp such as `2026-03-01T17:00:00.000Z`, or nil when it does not start with a
    /// date.
    static func day(_ timestamp: String?) -> Day? {
        guard let timestamp else { return nil }
        return Day(String(timestamp.prefix(10)))
    }
}
