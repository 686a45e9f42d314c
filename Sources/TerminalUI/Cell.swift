/// One screen cell: a grapheme cluster and its style, or the right half of a wide character.
public struct Cell: Hashable, Sendable {
    /// The grapheme shown in the cell; a space for a blank cell and for a continuation cell.
    public var character: Character
    /// How the cell is drawn.
    public var style: Style
    /// Whether this cell is the second column of the wide character in the cell to its left.
    public var isContinuation: Bool

    /// Makes a cell holding `character`.
    public init(_ character: Character, style: Style = .plain) {
        self.character = character
        self.style = style
        self.isContinuation = false
    }

    /// A blank cell (a space) in `style`.
    public static func blank(_ style: Style = .plain) -> Cell { Cell(" ", style: style) }

    /// The right half of a wide character drawn in `style`.
    public static func continuation(_ style: Style) -> Cell {
        var cell = Cell(" ", style: style)
        cell.isContinuation = true
        return cell
    }

    /// The columns the cell's character takes: 2 for a wide character, 1 otherwise, 0 for a continuation.
    public var width: Int { isContinuation ? 0 : max(1, DisplayWidth.of(character)) }
}
