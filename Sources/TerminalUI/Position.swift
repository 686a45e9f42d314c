/// A cell on the screen: column `x` and row `y`, both counted from 0 at the top left.
public struct Position: Hashable, Sendable {
    /// The column, from 0.
    public var x: Int
    /// The row, from 0.
    public var y: Int

    /// Makes a position.
    public init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }
}
