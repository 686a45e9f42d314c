/// How a cell is drawn: foreground and background colour plus text attributes.
public struct Style: Hashable, Sendable {
    /// The text colour.
    public var foreground: Color
    /// The cell's background colour.
    public var background: Color
    /// Bold, dim, italic, underline and reverse.
    public var attributes: TextAttributes

    /// Makes a style; every part defaults to the terminal's default.
    public init(foreground: Color = .default, background: Color = .default, attributes: TextAttributes = []) {
        self.foreground = foreground
        self.background = background
        self.attributes = attributes
    }

    /// The terminal's default style: default colours, no attributes.
    public static let plain = Style()

    /// This style with `attributes` added.
    public func adding(_ attributes: TextAttributes) -> Style {
        var copy = self
        copy.attributes.formUnion(attributes)
        return copy
    }

    /// This style with its colours reduced to what a terminal in `mode` can show; attributes are kept.
    public func downgraded(to mode: ColorMode) -> Style {
        Style(
            foreground: foreground.downgraded(to: mode), background: background.downgraded(to: mode),
            attributes: attributes)
    }
}
