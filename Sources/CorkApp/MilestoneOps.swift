import BoardCore

/// Turns the arguments of `cork milestone …` into ops, resolving milestone titles against the board first, and
/// lists milestones with their progress.
public enum MilestoneOps {
    /// The `milestone.create` for `title`, with an id made from the title (`v1.0` → `v1.0`, `Beta launch` →
    /// `beta-launch`, `-2` appended when taken) unless `id` is given.
    public static func create(
        title: String, description: String?, due: String?, id: String?, on board: Board
    ) throws(CorkFailure) -> Op {
        let trimmed = try checkedTitle(title)
        let milestone: MilestoneID
        if let id {
            guard let valid = MilestoneID(validating: id) else {
                throw CorkFailure.usage("\(id) is not a milestone id (1–64 of A–Z a–z 0–9 _ . -)")
            }
            milestone = valid
        } else {
            let taken = Set(board.milestones.map(\.id.rawValue))
            milestone = MilestoneID(
                uniqueIdentifier(identifier(from: trimmed.lowercased(), fallback: "milestone"), taken: taken))
        }
        return .createMilestone(
            milestone: milestone, title: trimmed, description: description, due: try due.map { text throws(CorkFailure) in try CardOps.day(text) })
    }

    /// The `milestone.update` of `cork milestone edit M [--title T] [--desc D] [--due DATE | --no-due]`.
    public static func edit(
        _ reference: String, title: String?, description: String?, due: String?, clearDue: Bool, on board: Board
    ) throws(CorkFailure) -> Op {
        if due != nil, clearDue { throw CorkFailure.usage("give --due or --no-due, not both") }
        let found = try milestone(reference, on: board)
        let newTitle = try title.map(checkedTitle)
        var newDue: Clearable<Day>?
        if let due { newDue = .set(try CardOps.day(due)) }
        if clearDue { newDue = .clear }
        if newTitle == nil, description == nil, newDue == nil {
            throw CorkFailure.usage("nothing to change: give --title, --desc, --due or --no-due")
        }
        return .updateMilestone(milestone: found.id, title: newTitle, description: description, due: newDue)
    }

    /// The milestone a reference names (exit 5 when none, 2 when ambiguous).
    public static func milestone(_ reference: String, on board: Board) throws(CorkFailure) -> Milestone {
        try CardOps.resolve { () throws(ResolutionError) in try MilestoneReference.resolve(reference, in: board) }
    }

    /// Every milestone of `board` in board order, with progress and whether it is overdue on `today`.
    public static func rows(_ board: Board, today: Day) -> [CorkJSON.MilestoneRow] {
        board.milestones.map { row($0, on: board, today: today) }
    }

    /// One milestone with its progress: done (closed, or in the last column) of its unarchived cards.
    public static func row(_ milestone: Milestone, on board: Board, today: Day) -> CorkJSON.MilestoneRow {
        let progress = board.progress(of: milestone.id)
        return CorkJSON.MilestoneRow(
            milestone: milestone.id, title: milestone.title, description: milestone.description, due: milestone.due,
            closed: milestone.closed, done: progress.done, total: progress.total,
            overdue: !milestone.closed && milestone.due.map { $0 < today } == true)
    }

    /// `v1  "v1.0"  3/5 done  due 2026-02-01 OVERDUE  closed`, one line per milestone.
    public static func text(_ rows: [CorkJSON.MilestoneRow]) -> String {
        if rows.isEmpty { return "no milestones\n" }
        let width = rows.map(\.milestone.rawValue.count).max() ?? 0
        return rows.map { row in
            var line = row.milestone.rawValue + String(repeating: " ", count: width - row.milestone.rawValue.count)
            line += "  \(FeedText.quotedTitle(row.title))  \(row.done)/\(row.total) done"
            if let due = row.due { line += "  due \(due)\(row.overdue ? " OVERDUE" : "")" }
            if row.closed { line += "  closed" }
            return line
        }.joined(separator: "\n") + "\n"
    }

    /// A milestone title without surrounding spaces, 1–`milestoneTitleMaxCharacters` characters (exit 2 otherwise).
    static func checkedTitle(_ title: String) throws(CorkFailure) -> String {
        let trimmed = title.trimmingSpaces
        guard !trimmed.isEmpty, trimmed.count <= Limits.milestoneTitleMaxCharacters else {
            throw CorkFailure.usage("a milestone title must be 1–\(Limits.milestoneTitleMaxCharacters) characters")
        }
        return trimmed
    }
}
