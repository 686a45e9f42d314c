/// A coloured label that cards can carry.
public struct Label: Hashable, Sendable, Codable, Identifiable {
    /// The label's identifier.
    public var id: LabelID
    /// The label's name (unique per board, case-insensitively).
    public var name: String
    /// The label's colour.
    public var color: HexColor

    /// Makes a label.
    public init(id: LabelID, name: String, color: HexColor) {
        self.id = id
        self.name = name
        self.color = color
    }
}
