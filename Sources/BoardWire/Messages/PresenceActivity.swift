/// What a person is doing on a board, as shown to the others.
public enum PresenceActivity: String, Hashable, Sendable, Codable, CaseIterable {
    /// Looking at the board (optionally at `card`).
    case viewing
    /// Editing `card` (its form is open).
    case editing
    /// Dragging `card`; `column` and `index` say where it hovers.
    case dragging
    /// Connected but not looking at this board.
    case idle
}
