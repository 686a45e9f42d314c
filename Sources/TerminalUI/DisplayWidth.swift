/// The number of terminal columns text occupies, and truncation to a number of columns.
///
/// Wide East Asian characters and emoji take 2 columns; combining marks, joiners, variation selectors and controls
/// take 0; a grapheme cluster takes the width of its widest scalar (so `e` + U+0301 is 1 and a ZWJ family is 2). An
/// emoji that has text presentation by default (`❤`) takes 2 columns when followed by U+FE0F and 1 with U+FE0E.
public enum DisplayWidth {
    /// The ellipsis that marks truncated text.
    public static let ellipsis: Character = "…"

    /// The columns one scalar takes on its own: 0, 1 or 2.
    public static func of(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x7F { return value >= 0x20 ? 1 : 0 }
        // Box drawing and block elements (column rules, bars): narrow, and drawn on every frame.
        if (0x2500...0x259F).contains(value) { return 1 }
        switch scalar.properties.generalCategory {
        case .control, .format, .nonspacingMark, .enclosingMark, .spacingMark,
            .lineSeparator, .paragraphSeparator, .surrogate:
            return 0
        default: break
        }
        if (0x1160...0x11FF).contains(value) || (0xD7B0...0xD7FF).contains(value) { return 0 }  // Hangul vowels/finals
        if scalar.properties.isEmojiPresentation || isEastAsianWide(value) { return 2 }
        return 1
    }

    /// The columns one grapheme cluster takes: the widest of its scalars, adjusted by emoji variation selectors.
    public static func of(_ character: Character) -> Int {
        // One byte of UTF-8 is one ASCII scalar: the common case, without the scalar view.
        let utf8 = character.utf8
        if utf8.count == 1, let byte = utf8.first { return byte >= 0x20 && byte < 0x7F ? 1 : 0 }
        let scalars = character.unicodeScalars
        if scalars.count == 1, let only = scalars.first { return of(only) }
        var widest = 0
        var emojiBase = false
        for scalar in scalars {
            widest = max(widest, of(scalar))
            if scalar.properties.isEmoji { emojiBase = true }
        }
        if emojiBase && scalars.contains("\u{FE0F}") { return 2 }
        if emojiBase && scalars.contains("\u{FE0E}") { return min(widest, 1) }
        return widest
    }

    /// The columns a string takes: the sum over its grapheme clusters.
    public static func of(_ text: some StringProtocol) -> Int {
        text.reduce(0) { $0 + of($1) }
    }

    /// `text` cut to at most `width` columns, ending in `ellipsis` when anything was cut.
    ///
    /// A wide character never straddles the edge: when one would, a space fills the column it leaves, so a truncated
    /// result is exactly `width` columns wide. Text that fits is returned unchanged.
    public static func truncate(_ text: String, to width: Int, ellipsis: Character? = DisplayWidth.ellipsis) -> String {
        guard width > 0 else { return "" }
        if of(text) <= width { return text }
        let marker = ellipsis.map { of($0) } ?? 0
        let room = max(0, width - marker)
        var result = ""
        var used = 0
        for character in text {
            let columns = of(character)
            if used + columns > room { break }
            result.append(character)
            used += columns
        }
        if let ellipsis, marker <= width {
            result.append(ellipsis)
            used += marker
        }
        if used < width { result.append(String(repeating: " ", count: width - used)) }
        return result
    }

    /// `text` padded with spaces or truncated (with `ellipsis`) to exactly `width` columns.
    public static func fit(_ text: String, to width: Int, ellipsis: Character? = DisplayWidth.ellipsis) -> String {
        let truncated = truncate(text, to: width, ellipsis: ellipsis)
        let columns = of(truncated)
        return columns < width ? truncated + String(repeating: " ", count: width - columns) : truncated
    }

    /// `text` broken into lines of at most `width` columns, for text that is there to be read in full: breaks after
    /// a space where there is one, inside a word only when the word alone is wider than a line. Later lines start
    /// with `indent` spaces (counted in `width`). Nothing is dropped: the lines joined again hold every character.
    public static func wrap(_ text: String, width: Int, indent: Int = 0) -> [String] {
        guard width > 0 else { return [text] }
        let indent = max(0, min(indent, width - 1))
        var lines: [String] = []
        var line = ""
        var used = 0
        // Where the current line could break: the index just after its last space, and the columns up to there.
        var lastBreak: (index: String.Index, used: Int)?
        var limit = width
        for character in text {
            let columns = of(character)
            while used + columns > limit, !line.isEmpty {
                if let lastBreak, lastBreak.index < line.endIndex {
                    let rest = String(line[lastBreak.index...])
                    lines.append(String(line[..<lastBreak.index]))
                    line = rest
                    used -= lastBreak.used
                } else {
                    lines.append(line)
                    line = ""
                    used = 0
                }
                lastBreak = nil
                limit = width - indent
            }
            line.append(character)
            used += columns
            if character == " " { lastBreak = (line.endIndex, used) }
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        let pad = String(repeating: " ", count: indent)
        return lines.enumerated().map { $0.offset == 0 ? $0.element : pad + $0.element }
    }
}
