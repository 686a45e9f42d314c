/// Text attributes a terminal renders with SGR: bold, dim, italic, underline and reverse video.
public struct TextAttributes: OptionSet, Hashable, Sendable {
    /// The attribute bits.
    public let rawValue: UInt8

    /// Makes attributes from their bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Bold or bright text (SGR 1).
    public static let bold = TextAttributes(rawValue: 1 << 0)
    /// Dim (faint) text (SGR 2).
    public static let dim = TextAttributes(rawValue: 1 << 1)
    /// Italic text (SGR 3).
    public static let italic = TextAttributes(rawValue: 1 << 2)
    /// Underlined text (SGR 4).
    public static let underline = TextAttributes(rawValue: 1 << 3)
    /// Foreground and background swapped (SGR 7); stays visible without colour, so selections use it.
    public static let reverse = TextAttributes(rawValue: 1 << 4)
}
