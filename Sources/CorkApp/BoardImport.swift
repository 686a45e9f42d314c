import BoardCore
import Foundation

/// A board exported with `cork export --format json` turned into the ops that copy it onto an existing board.
///
/// Columns, labels and milestones are matched by name (ignoring case) and created when missing, with their
/// exported ids when free. Cards keep their ids, refs, titles, descriptions, due dates, labels, milestones and
/// positions; assignees stay only when they are members of the target board. Each card is followed by its
/// checklist items, its comments (as `author (YYYY-MM-DD): text`: a comment's author cannot be set by another
/// user), then `card.close` and `card.archive` when the exported card was closed or archived.
///
/// Importing the same file again is refused card by card (`duplicate_id` or `duplicate_ref`); ``OpSequence`` then
/// skips the later ops of those cards, so nothing is doubled.
public struct BoardImport: Sendable {
    /// The ops to apply, in order.
    public var ops: [Op]
    /// Cards to add.
    public var cards = 0
    /// Columns, labels and milestones to create.
    public var created = 0
    /// What was left out, one sentence each.
    public var warnings: [String] = []

    /// Reads an exported board and plans its copy onto `board`.
    public init(json data: Data, onto board: Board) throws(CorkFailure) {
        let source: Board
        do {
            source = try JSONDecoder().decode(Board.self, from: data)
        } catch {
            throw CorkFailure(.usage, "the file is not a board exported by cork export --format json: \(Self.reason(error))")
        }
        ops = []
        plan(source, onto: board)
    }

    private mutating func plan(_ source: Board, onto board: Board) {
        // The reminder lead time, when the exported board set one and this board has another (an owner's op).
        if let hours = source.remindHours, board.remindHours != hours { ops.append(.setRemindHours(hours: hours)) }
        // Columns: by name, else a new one at the right end.
        var columns: [ColumnID: ColumnID] = [:]
        var takenColumns = Set(board.columns.map(\.id.rawValue))
        for column in source.columns {
            if let existing = board.columns.first(where: { $0.name.lowercased() == column.name.lowercased() }) {
                columns[column.id] = existing.id
                continue
            }
            let id = ColumnID(uniqueIdentifier(column.id.rawValue, taken: takenColumns))
            takenColumns.insert(id.rawValue)
            ops.append(.addColumn(column: id, name: column.name, index: nil))
            if let wip = column.wip { ops.append(.setWIPLimit(column: id, limit: wip)) }
            columns[column.id] = id
            created += 1
        }
        // Labels: by name, else created with the exported colour.
        var labels: [LabelID: LabelID] = [:]
        var takenLabels = Set(board.labels.map(\.id.rawValue))
        for label in source.labels {
            if let existing = board.labels.first(where: { $0.name.lowercased() == label.name.lowercased() }) {
                labels[label.id] = existing.id
                continue
            }
            let id = LabelID(uniqueIdentifier(label.id.rawValue, taken: takenLabels))
            takenLabels.insert(id.rawValue)
            ops.append(.createLabel(label: id, name: label.name, color: label.color))
            labels[label.id] = id
            created += 1
        }
        // Milestones: by title, else created (and closed when they were).
        var milestones: [MilestoneID: MilestoneID] = [:]
        var takenMilestones = Set(board.milestones.map(\.id.rawValue))
        for milestone in source.milestones {
            if let existing = board.milestones.first(where: { $0.title.lowercased() == milestone.title.lowercased() }) {
                milestones[milestone.id] = existing.id
                continue
            }
            let id = MilestoneID(uniqueIdentifier(milestone.id.rawValue, taken: takenMilestones))
            takenMilestones.insert(id.rawValue)
            ops.append(
                .createMilestone(
                    milestone: id, title: milestone.title,
                    description: milestone.description.isEmpty ? nil : milestone.description, due: milestone.due))
            if milestone.closed { ops.append(.closeMilestone(milestone: id)) }
            milestones[milestone.id] = id
            created += 1
        }
        var dropped = Set<UserID>()
        for card in source.orderedCards {
            guard let column = columns[card.column] else {
                warnings.append("card #\(card.number) was skipped: its column \(card.column) is not in the file")
                continue
            }
            let assignees = card.assignees.filter { board.members[$0] != nil }
            dropped.formUnion(card.assignees.filter { board.members[$0] == nil })
            var add = AddCard(card: card.id, column: column, title: card.title)
            add.description = card.description
            add.due = card.due
            add.labels = card.labels.compactMap { labels[$0] }
            add.assignees = assignees
            add.milestone = card.milestone.flatMap { milestones[$0] }
            add.ref = card.ref
            add.createdAt = card.createdAt
            ops.append(.addCard(add))
            cards += 1
            for item in card.checklist {
                ops.append(.addChecklistItem(card: card.id, item: item.id, text: item.text, done: item.done, index: nil))
            }
            for comment in card.comments {
                var cut = false
                let text = ImportText.text(
                    "\(comment.author) (\(comment.at.day)): \(comment.text)", maxBytes: Limits.commentMaxBytes, cut: &cut)
                ops.append(.addComment(card: card.id, comment: comment.id, text: text))
            }
            if card.closed { ops.append(.closeCard(card: card.id)) }
            if card.archived { ops.append(.archiveCard(card: card.id)) }
        }
        if !dropped.isEmpty {
            let names = dropped.sorted().map(\.rawValue)
            warnings.append("not members of board \(board.id), so not assigned: \(ResolutionError.list(names))")
        }
    }

    private static func reason(_ error: any Error) -> String {
        guard let decoding = error as? DecodingError else { return "not valid JSON" }
        switch decoding {
        case .keyNotFound(let key, _): return "no \"\(key.stringValue)\""
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return context.codingPath.map(\.stringValue).joined(separator: ".") + " has the wrong type"
        case .dataCorrupted: return "not valid JSON"
        @unknown default: return "\(error)"
        }
    }
}
