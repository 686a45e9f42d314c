/// Turns one frame into the next: the minimal ANSI byte string that changes a terminal showing `previous` into one
/// showing `next`.
///
/// Only changed cells are written; the cursor is moved (CUP) only when the next changed cell is not where the last
/// write left it, and always after a grapheme of several scalars (an emoji sequence), whose width terminals disagree
/// on; SGR is sent only when the style changes. The cursor is hidden while drawing and, when the frame asks
/// for it (`ScreenBuffer.cursor`), shown at that position at the end. Without a previous frame, or when the size
/// changed, the screen is cleared (ED 2J) and every non-blank cell drawn. Each frame ends with the default style, so
/// frames can be rendered independently. An unchanged frame produces no bytes at all.
public struct Renderer: Hashable, Sendable {
    /// The colours the terminal can show; styles are downgraded to it.
    public var colorMode: ColorMode

    /// Makes a renderer for a terminal with `colorMode`.
    public init(colorMode: ColorMode = .trueColor) {
        self.colorMode = colorMode
    }

    /// The escape sequences and text that turn a terminal showing `previous` (or anything, when `nil`) into `next`.
    public func render(from previous: ScreenBuffer?, to next: ScreenBuffer) -> String {
        var output = ""
        var cursorVisible: Bool
        let base: ScreenBuffer
        if let previous, previous.width == next.width, previous.height == next.height {
            base = previous
            cursorVisible = previous.cursor != nil
        } else {
            output += Self.hideCursor + Self.resetStyle + "\u{1B}[H\u{1B}[2J"
            base = ScreenBuffer(width: next.width, height: next.height)
            cursorVisible = false
        }
        var pen = Style.plain
        var at: Position? = nil
        for y in 0..<next.height {
            for x in 0..<next.width where isDirty(x: x, y: y, old: base, new: next) {
                if cursorVisible {
                    output += Self.hideCursor
                    cursorVisible = false
                }
                let cell = next[x, y]
                if at != Position(x: x, y: y) { output += Self.moveCursor(to: Position(x: x, y: y)) }
                let style = cell.style.downgraded(to: colorMode)
                if style != pen {
                    output += style.sgr
                    pen = style
                }
                let end = x + cell.width
                if cell.character.unicodeScalars.count > 1 {
                    // Terminals disagree on the width of emoji sequences (tmux 3.3 draws `❤️` in one cell, kitty and
                    // WezTerm in two): blank both cells first, draw the sequence, and place the cursor explicitly,
                    // so a terminal that draws it narrower leaves a blank instead of shifting the rest of the row.
                    if cell.width == 2 { output += "  " + Self.moveCursor(to: Position(x: x, y: y)) }
                    output.append(cell.character)
                    at = nil
                    continue
                }
                output.append(cell.character)
                // After writing into the last column the terminal's cursor is in a pending-wrap state: move explicitly.
                at = end < next.width ? Position(x: end, y: y) : nil
            }
        }
        if pen != .plain { output += Self.resetStyle }
        if let cursor = next.cursor {
            if cursor != base.cursor || !output.isEmpty || !cursorVisible {
                output += Self.moveCursor(to: cursor)
            }
            if !cursorVisible { output += Self.showCursor }
        } else if cursorVisible {
            output += Self.hideCursor
        }
        return output
    }

    /// Whether the cell at (x, y) must be written: it starts a character (not a continuation) and it, or the
    /// continuation cell it covers, differs from the old frame.
    private func isDirty(x: Int, y: Int, old: ScreenBuffer, new: ScreenBuffer) -> Bool {
        let cell = new[x, y]
        if cell.isContinuation { return false }
        if cell != old[x, y] { return true }
        // Only a wide character is followed by a continuation cell (ScreenBuffer keeps that so), which is cheaper to
        // ask than the character's width on every unchanged cell.
        guard x + 1 < new.width else { return false }
        let next = new[x + 1, y]
        return next.isContinuation && next != old[x + 1, y]
    }

    /// CUP: moves the cursor to a 0-based position (sent 1-based).
    static func moveCursor(to position: Position) -> String {
        "\u{1B}[\(position.y + 1);\(position.x + 1)H"
    }

    /// SGR 0: back to the default style.
    static let resetStyle = "\u{1B}[0m"
    /// DECTCEM off: hides the cursor.
    static let hideCursor = "\u{1B}[?25l"
    /// DECTCEM on: shows the cursor.
    static let showCursor = "\u{1B}[?25h"
}
