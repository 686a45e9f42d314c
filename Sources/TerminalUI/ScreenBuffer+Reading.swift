extension ScreenBuffer {
    /// Every row as plain text, each exactly `width` columns wide (wide characters once).
    public var lines: [String] { (0..<height).map { line($0) } }

    /// Row `y` as plain text, exactly `width` columns wide (wide characters once, continuation cells omitted).
    public func line(_ y: Int) -> String {
        var text = ""
        for x in 0..<width where !self[x, y].isContinuation { text.append(self[x, y].character) }
        return text
    }

    /// Row `y` as runs of adjacent cells that share a style, left to right.
    public func spans(_ y: Int) -> [StyledSpan] {
        var spans: [StyledSpan] = []
        for x in 0..<width {
            let cell = self[x, y]
            if cell.isContinuation { continue }
            if let last = spans.last, last.style == cell.style {
                spans[spans.count - 1].text.append(cell.character)
            } else {
                spans.append(StyledSpan(x: x, text: String(cell.character), style: cell.style))
            }
        }
        return spans
    }
}
