/// A run of adjacent cells in one row that share a style, as read back from a `ScreenBuffer`.
public struct StyledSpan: Hashable, Sendable {
    /// The first column of the run.
    public var x: Int
    /// The run's text (wide characters once, continuation cells omitted).
    public var text: String
    /// The style every cell of the run has.
    public var style: Style

    /// Makes a span.
    public init(x: Int, text: String, style: Style) {
        self.x = x
        self.text = text
        self.style = style
    }
}
