extension ScreenBuffer {
    /// Draws the outline of `rect` with `border` characters in `style`, with an optional `title` in the top edge.
    ///
    /// The title starts two columns in and is truncated with `…` to fit between the corners. Rectangles smaller than
    /// 2×2 draw nothing; the inside is left as it was.
    public mutating func drawBox(
        _ rect: Rect, border: BoxBorder = .single, style: Style = .plain, title: String? = nil
    ) {
        guard rect.width >= 2, rect.height >= 2 else { return }
        let right = rect.x + rect.width - 1
        let bottom = rect.y + rect.height - 1
        let horizontal = String(repeating: border.horizontal, count: rect.width - 2)
        write(String(border.topLeft) + horizontal + String(border.topRight), x: rect.x, y: rect.y, style: style)
        write(
            String(border.bottomLeft) + horizontal + String(border.bottomRight), x: rect.x, y: bottom, style: style)
        if rect.height > 2 {
            for y in (rect.y + 1)..<bottom {
                write(String(border.vertical), x: rect.x, y: y, style: style)
                write(String(border.vertical), x: right, y: y, style: style)
            }
        }
        if let title, rect.width > 4 {
            let room = rect.width - 4
            write(DisplayWidth.truncate(title, to: room), x: rect.x + 2, y: rect.y, style: style, maxWidth: room)
        }
    }
}
