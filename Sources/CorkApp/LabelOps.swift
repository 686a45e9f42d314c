import BoardCore

/// Turns what a person types about a board's labels (`cork labels …`, `/labels …`) into ops, resolving the label
/// against the board first, so a typo is exit 5 or 2 before anything is sent.
public enum LabelOps {
    /// Colour names a person may type instead of `#RRGGBB`.
    public static let colorNames: [String: HexColor] = [
        "red": HexColor("#d73a4a")!, "orange": HexColor("#d93f0b")!, "yellow": HexColor("#fbca04")!,
        "green": HexColor("#0e8a16")!, "teal": HexColor("#006b75")!, "blue": HexColor("#1d76db")!,
        "navy": HexColor("#0052cc")!, "purple": HexColor("#5319e7")!, "pink": HexColor("#e99695")!,
        "gray": HexColor("#cfd3d7")!, "grey": HexColor("#cfd3d7")!, "black": HexColor("#000000")!,
        "white": HexColor("#ffffff")!,
    ]

    /// A colour as typed: `#RRGGBB`, `RRGGBB`, or one of ``colorNames``.
    public static func color(_ text: String) throws(CorkFailure) -> HexColor {
        let trimmed = text.trimmingSpaces
        if let named = colorNames[trimmed.lowercased()] { return named }
        if let hex = HexColor(trimmed.hasPrefix("#") ? trimmed : "#" + trimmed) { return hex }
        let names = colorNames.keys.filter { $0 != "grey" }.sorted().joined(separator: ", ")
        throw CorkFailure.usage("\(text) is not a colour: #RRGGBB, or one of \(names)")
    }

    /// The `label.create` of a new label called `name`, in `color` (typed) or the colour its name gets.
    public static func add(name: String, color: String?, on board: Board) throws(CorkFailure) -> Op {
        let trimmed = name.trimmingSpaces
        guard !trimmed.isEmpty else { throw CorkFailure.usage("a label needs a name") }
        if let existing = board.labels.first(where: { $0.name.lowercased() == trimmed.lowercased() }) {
            throw CorkFailure.usage("board \(board.id) has a label \(existing.name) already (names ignore case)")
        }
        let hex = try color.map(Self.color) ?? LabelPalette.color(forName: trimmed)
        return .createLabel(label: LabelPalette.newLabelID(forName: trimmed, on: board), name: trimmed, color: hex)
    }

    /// The `label.update` that gives the label `reference` names the colour `color` (typed).
    public static func recolor(_ reference: String, to color: String, on board: Board) throws(CorkFailure) -> Op {
        .updateLabel(label: try label(reference, on: board).id, name: nil, color: try Self.color(color))
    }

    /// The `label.update` that renames the label `reference` names.
    public static func rename(_ reference: String, to name: String, on board: Board) throws(CorkFailure) -> Op {
        let trimmed = name.trimmingSpaces
        guard !trimmed.isEmpty else { throw CorkFailure.usage("a label needs a name") }
        let renamed = try label(reference, on: board)
        // Found here, as for a new label (exit 2, the same words), rather than by the server as `invalid` (exit 3).
        if let existing = board.labels.first(where: { $0.id != renamed.id && $0.name.lowercased() == trimmed.lowercased() }) {
            throw CorkFailure.usage("board \(board.id) has a label \(existing.name) already (names ignore case)")
        }
        return .updateLabel(label: renamed.id, name: trimmed, color: nil)
    }

    /// The `label.delete` of the label `reference` names (it comes off every card).
    public static func remove(_ reference: String, on board: Board) throws(CorkFailure) -> Op {
        .deleteLabel(label: try label(reference, on: board).id)
    }

    /// The board's labels, one per line: name, colour, and how many cards (archived ones apart) carry it.
    public static func list(_ board: Board) -> [String] {
        guard !board.labels.isEmpty else { return ["no labels on board \(board.id)"] }
        return board.labels.map { label in
            let cards = board.cards.values.filter { !$0.archived && $0.labels.contains(label.id) }.count
            return "\(BoardText.plain(label.name)) \(label.color) · \(cards) card\(cards == 1 ? "" : "s")"
        }
    }

    static func label(_ reference: String, on board: Board) throws(CorkFailure) -> Label {
        try CardOps.resolve { () throws(ResolutionError) in try LabelReference(reference).resolve(in: board) }
    }
}
