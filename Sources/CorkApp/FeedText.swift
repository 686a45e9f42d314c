/// Text helpers for one-line sentences: control characters out, long text cut with `…`.
enum FeedText {
    /// Longest title shown in a sentence, in characters (the `…` included).
    static let titleMax = 40
    /// Longest comment or chat text shown in a sentence, in characters (the `…` included).
    static let textMax = 200

    /// `text` on one line: newlines, tabs and other control characters become single spaces.
    static func oneLine(_ text: String) -> String {
        var out = ""
        var lastWasSpace = false
        for scalar in text.unicodeScalars {
            let control = scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028
                || scalar.value == 0x2029
            if control {
                if !lastWasSpace { out.unicodeScalars.append(" ") }
                lastWasSpace = true
            } else {
                out.unicodeScalars.append(scalar)
                lastWasSpace = scalar == " "
            }
        }
        return out.trimmingSpaces
    }

    /// `text` on one line and at most `max` characters, ending in `…` when cut.
    static func truncate(_ text: String, max: Int) -> String {
        let line = oneLine(text)
        guard line.count > max, max > 0 else { return line }
        return String(line.prefix(max - 1)).trimmingSpaces + "…"
    }

    /// The title in double quotes, cut to `titleMax`.
    static func quotedTitle(_ title: String) -> String { "\"\(truncate(title, max: titleMax))\"" }
}
