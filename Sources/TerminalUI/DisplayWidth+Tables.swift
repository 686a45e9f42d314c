extension DisplayWidth {
    /// East Asian Wide and Fullwidth ranges (Unicode EastAsianWidth.txt W and F) that are not already emoji with
    /// emoji presentation, sorted and disjoint, as (first, last) scalar values.
    static let eastAsianWideRanges: [(UInt32, UInt32)] = [
        (0x1100, 0x115F),  // Hangul Jamo initial consonants
        (0x2329, 0x232A),  // angle brackets
        (0x2E80, 0x303E),  // CJK radicals, Kangxi, ideographic description, CJK symbols and punctuation
        (0x3041, 0x33FF),  // Hiragana, Katakana, Bopomofo, Hangul compatibility Jamo, Kanbun, CJK compatibility
        (0x3400, 0x4DBF),  // CJK Unified Ideographs Extension A
        (0x4E00, 0x9FFF),  // CJK Unified Ideographs
        (0xA000, 0xA4CF),  // Yi
        (0xA960, 0xA97F),  // Hangul Jamo Extended-A
        (0xAC00, 0xD7A3),  // Hangul syllables
        (0xF900, 0xFAFF),  // CJK compatibility ideographs
        (0xFE10, 0xFE19),  // vertical forms
        (0xFE30, 0xFE6F),  // CJK compatibility forms, small form variants
        (0xFF00, 0xFF60),  // fullwidth forms
        (0xFFE0, 0xFFE6),  // fullwidth signs
        (0x16FE0, 0x16FE4),  // ideographic symbols
        (0x17000, 0x18CFF),  // Tangut, Khitan
        (0x1AFF0, 0x1B2FF),  // Kana supplement and extensions, Nushu
        (0x1F200, 0x1F2FF),  // enclosed ideographic supplement
        (0x20000, 0x2FFFD),  // CJK Extensions B–F, compatibility supplement
        (0x30000, 0x3FFFD),  // CJK Extensions G and later
    ]

    /// Whether a scalar value is East Asian Wide or Fullwidth, by binary search of the table.
    static func isEastAsianWide(_ value: UInt32) -> Bool {
        if value < 0x1100 { return false }
        var low = 0
        var high = eastAsianWideRanges.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let (first, last) = eastAsianWideRanges[middle]
            if value < first {
                high = middle - 1
            } else if value > last {
                low = middle + 1
            } else {
                return true
            }
        }
        return false
    }
}
