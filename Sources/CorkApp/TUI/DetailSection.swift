import TerminalUI

/// One part of the card detail (its title, facts, description, checklist, comments or history): the rows it wants,
/// the fewest it can do with, and what it shows in a given number of rows.
///
/// A small terminal cannot show a whole card. ``layout(_:rows:)`` gives every part the rows it wants when they fit;
/// otherwise it takes rows back from the parts in the order of their ``shrinkRank`` down to their ``floor`` (then,
/// on the smallest terminals, down to their ``hardFloor``), and each part says in its own rows what it left out
/// ("… 3 more items", "history (12 older not shown)").
struct DetailSection {
    /// Its rows when there is room for all of it.
    var full: Int
    /// The fewest rows it keeps while another part can still give some up.
    var floor: Int
    /// The fewest rows it keeps at all.
    var hardFloor: Int
    /// When it gives up rows: the lowest rank first.
    var shrinkRank: Int
    /// Whether a blank row separates it from the part above it (when there is room for the blank rows).
    var gapBefore: Bool
    /// The part in at most that many rows (at least ``hardFloor``).
    var lines: (Int) -> [TUIModel.OverlayLine]

    /// A part that is the same in any number of rows (`lines`, cut at the bottom), shrinking to `floor` rows.
    static func fixed(
        _ lines: [TUIModel.OverlayLine], floor: Int, hardFloor: Int, shrinkRank: Int, gapBefore: Bool
    ) -> DetailSection {
        DetailSection(
            full: lines.count, floor: min(floor, lines.count), hardFloor: min(hardFloor, lines.count),
            shrinkRank: shrinkRank, gapBefore: gapBefore, lines: { Array(lines.prefix($0)) })
    }

    /// The rows of all `sections`, in order, in at most `rows` rows.
    static func layout(_ sections: [DetailSection], rows: Int) -> [TUIModel.OverlayLine] {
        var sizes = sections.map(\.full)
        let order = sections.indices.sorted { sections[$0].shrinkRank < sections[$1].shrinkRank }
        for floor in [\DetailSection.floor, \.hardFloor] {
            for index in order {
                let excess = sizes.reduce(0, +) - rows
                guard excess > 0 else { break }
                sizes[index] = max(min(sections[index][keyPath: floor], sizes[index]), sizes[index] - excess)
            }
        }
        // Blank rows between the parts while rows are left, before the parts that give up rows last first.
        let first = sizes.firstIndex { $0 > 0 } ?? 0
        let gaps = sections.indices.filter { $0 > first && sections[$0].gapBefore && sizes[$0] > 0 }
            .sorted { sections[$0].shrinkRank > sections[$1].shrinkRank }
            .prefix(max(0, rows - sizes.reduce(0, +)))
        var lines: [TUIModel.OverlayLine] = []
        for (index, section) in sections.enumerated() where sizes[index] > 0 {
            if gaps.contains(index) { lines.append(("", Style())) }
            lines += section.lines(sizes[index]).prefix(sizes[index])
        }
        return Array(lines.prefix(rows))
    }

    /// Which of `count` items show in `rows` rows so that `selected` does: a run of them, with a row above saying
    /// how many are hidden above it and one below for those below it, each only when some are and there is room.
    static func window(count: Int, selected: Int, rows: Int) -> (items: Range<Int>, above: Bool, below: Bool) {
        if rows >= count { return (0..<count, false, false) }
        let selected = max(0, min(count - 1, selected))
        guard rows >= 2 else { return (selected..<(selected + 1), false, false) }
        // From the top, with a row for the rest below.
        if selected < rows - 1 { return (0..<(rows - 1), false, true) }
        // At the bottom, with a row for the rest above.
        if selected >= count - (rows - 1) { return ((count - rows + 1)..<count, true, false) }
        // In between: both rows, and as many items as fit, the selected one in the middle of them.
        guard rows >= 3 else { return (selected..<(selected + 1), false, true) }
        let shown = rows - 2
        let start = max(1, min(count - 1 - shown, selected - (shown - 1) / 2))
        return (start..<(start + shown), true, true)
    }
}
