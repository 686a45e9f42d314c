/// A width × height grid of cells that a frame is drawn into, plus where the terminal cursor should end up.
///
/// A wide character occupies its cell and a continuation cell to its right. Writes keep that invariant: a wide
/// character never starts in the last column or at a clip edge, and overwriting either half of a wide character
/// turns the other half into a blank.
public struct ScreenBuffer: Hashable, Sendable {
    /// The number of columns.
    public let width: Int
    /// The number of rows.
    public let height: Int
    /// The cells, row by row.
    public private(set) var cells: [Cell]
    /// Where the terminal shows its cursor after this frame (the input line), or `nil` to keep it hidden.
    public var cursor: Position?

    /// Makes a buffer of blank cells in `style`.
    public init(width: Int, height: Int, style: Style = .plain) {
        self.width = max(0, width)
        self.height = max(0, height)
        self.cells = Array(repeating: .blank(style), count: self.width * self.height)
        self.cursor = nil
    }

    /// The whole buffer as a rectangle.
    public var bounds: Rect { Rect(x: 0, y: 0, width: width, height: height) }

    /// The cell at column `x`, row `y` (which must be inside the buffer).
    public subscript(x: Int, y: Int) -> Cell {
        cells[y * width + x]
    }

    /// Writes `text` starting at column `x` of row `y` in `style`, clipped to the buffer and to `maxWidth` columns.
    ///
    /// Zero-width clusters and controls are skipped. A wide character that would cross the clip edge (left or right)
    /// leaves a space in the column it would have taken. `x` may be negative (text scrolled off to the left).
    /// Returns the number of columns the text advanced, clipped or not.
    @discardableResult
    public mutating func write(_ text: String, x: Int, y: Int, style: Style = .plain, maxWidth: Int? = nil) -> Int {
        guard y >= 0, y < height else { return DisplayWidth.of(text) }
        let left = max(0, x)
        let right = min(width, maxWidth.map { x + max(0, $0) } ?? width)
        var column = x
        for character in text {
            let columns = DisplayWidth.of(character)
            guard columns > 0 else { continue }
            defer { column += columns }
            if column >= right || column + columns <= left { continue }
            if column >= left && column + columns <= right {
                put(Cell(character, style: style), columns: columns, x: column, y: y)
            } else {
                for blank in max(column, left)..<min(column + columns, right) {
                    put(.blank(style), columns: 1, x: blank, y: y)
                }
            }
        }
        return column - x
    }

    /// Sets every cell of `rect` (clipped to the buffer) to `character` in `style`; a wide character is treated as a
    /// space.
    public mutating func fill(_ rect: Rect, with character: Character = " ", style: Style = .plain) {
        let area = rect.intersection(bounds)
        let fillCharacter = DisplayWidth.of(character) == 1 ? character : " "
        for y in area.y..<(area.y + area.height) {
            for x in area.x..<(area.x + area.width) {
                put(Cell(fillCharacter, style: style), columns: 1, x: x, y: y)
            }
        }
    }

    /// Sets one cell of width `columns` (1 or 2) at (x, y), blanking the other half of any wide character it
    /// overlaps. The cell must fit inside the row.
    mutating func put(_ cell: Cell, columns: Int, x: Int, y: Int) {
        guard y >= 0, y < height, x >= 0, x + columns <= width else { return }
        for column in x..<(x + columns) { breakWide(x: column, y: y) }
        cells[y * width + x] = cell
        if columns == 2 { cells[y * width + x + 1] = .continuation(cell.style) }
    }

    /// If (x, y) is half of a wide character, turns the other half into a blank in that character's style.
    private mutating func breakWide(x: Int, y: Int) {
        let index = y * width + x
        if cells[index].isContinuation {
            if x > 0 { cells[index - 1] = .blank(cells[index - 1].style) }
            cells[index] = .blank(cells[index].style)
        } else if x + 1 < width, cells[index + 1].isContinuation {
            cells[index + 1] = .blank(cells[index + 1].style)
        }
    }
}
