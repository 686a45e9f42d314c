import BoardCore
import Foundation

/// Turns the arguments of the card commands into ops, resolving names against the board first, so that a typo is
/// a clear local error (exit 5 or 2) and never a half-applied change.
public enum CardOps {
    /// What `cork add` was given.
    public struct AddRequest: Hashable, Sendable {
        /// The title.
        public var title: String
        /// The column, by id or name (default: the first).
        public var column: String?
        /// Labels by id or name; ones the board lacks are created.
        public var labels: [String] = []
        /// `YYYY-MM-DD`.
        public var due: String?
        /// Members to assign, by id (with or without `@`) or display name.
        public var assignees: [String] = []
        /// The description.
        public var description: String?
        /// The external reference.
        public var ref: String?
        /// The milestone, by id or title.
        public var milestone: String?

        /// A request for a card titled `title`.
        public init(title: String) { self.title = title }
    }

    /// An empty title is refused as the server refuses it (`invalid`, exit 3), like any other invalid field, before
    /// anything is sent.
    static let emptyTitle = CorkFailure(.rejected, "invalid: title must not be empty")

    /// The ops of `cork add`: a `label.create` for each label the board lacks, then the `card.add` (last).
    public static func add(
        _ request: AddRequest, on board: Board, cardID: CardID, today: Day = CardOps.utcToday
    ) throws(CorkFailure) -> [Op] {
        if request.title.trimmingSpaces.isEmpty { throw emptyTitle }
        var column: ColumnID?
        if let text = request.column { column = try resolve { () throws(ResolutionError) in try ColumnReference.resolve(text, in: board).id } }
        let (labelOps, labels) = try labelIDs(request.labels, on: board)
        let assignees = try request.assignees.map { text throws(CorkFailure) in
            try resolve { () throws(ResolutionError) in try MemberReference.resolve(text, in: board).id }
        }
        var add = AddCard(card: cardID, column: column, title: request.title)
        add.description = request.description ?? ""
        add.due = try request.due.map { text throws(CorkFailure) in try day(text, today: today) }
        add.labels = labels
        add.assignees = unique(assignees)
        add.ref = request.ref
        if let text = request.milestone { add.milestone = try MilestoneOps.milestone(text, on: board).id }
        return labelOps + [.addCard(add)]
    }

    /// The labels named by `names`: the ops creating those the board lacks (LabelPalette colours, new ids) and the
    /// ids of all of them, in order, without repeats.
    public static func labelIDs(_ names: [String], on board: Board) throws(CorkFailure) -> (create: [Op], ids: [LabelID]) {
        var planned = board
        var create: [Op] = []
        var ids: [LabelID] = []
        for name in names {
            let id: LabelID
            do {
                id = try LabelReference.resolve(name, in: planned).id
            } catch let error where error.code == .notFound {
                let trimmed = name.trimmingSpaces
                id = LabelPalette.newLabelID(forName: trimmed, on: planned)
                let color = LabelPalette.color(forName: trimmed)
                create.append(.createLabel(label: id, name: trimmed, color: color))
                planned.labels.append(Label(id: id, name: trimmed, color: color))
            } catch {
                throw CorkFailure(error)
            }
            if !ids.contains(id) { ids.append(id) }
        }
        return (create, ids)
    }

    /// Where `cork move` puts the card: `--after CARD`, `--before CARD`, `--top` or `--bottom` (default), at most
    /// one of them.
    public static func placement(
        after: String?, before: String?, top: Bool, bottom: Bool, on board: Board
    ) throws(CorkFailure) -> Placement {
        let given = [after != nil, before != nil, top, bottom].filter { $0 }.count
        if given > 1 { throw CorkFailure.usage("give at most one of --after, --before, --top and --bottom") }
        if let after { return Placement(after: try card(after, on: board).id) }
        if let before { return Placement(before: try card(before, on: board).id) }
        return top ? .top : .bottom
    }

    /// The `card.move` of `cork move CARD COLUMN …`.
    public static func move(
        _ cardText: String, to columnText: String, placement: (Board) throws(CorkFailure) -> Placement, force: String? = nil,
        on board: Board
    ) throws(CorkFailure) -> Op {
        let card = try card(cardText, on: board)
        let column = try resolve { () throws(ResolutionError) in try ColumnReference.resolve(columnText, in: board) }
        if let force, force.trimmingSpaces.isEmpty { throw CorkFailure.usage("--force needs a reason") }
        return .moveCard(card: card.id, column: column.id, placement: try placement(board), force: force)
    }

    /// The `card.block`s (or `card.unblock`s) of `cork block CARD --by OTHER …`.
    public static func block(_ cardText: String, by others: [String], remove: Bool, on board: Board) throws(CorkFailure) -> (CardID, [Op]) {
        let card = try card(cardText, on: board)
        guard !others.isEmpty else { throw CorkFailure.usage("name the blocking card with --by") }
        var ops: [Op] = []
        for text in others {
            let other = try self.card(text, on: board)
            if other.id == card.id { throw CorkFailure.usage("#\(card.number) cannot wait for itself") }
            if !remove, other.archived {
                // The server would take it and then never show it (an archived card blocks nothing).
                throw CorkFailure(
                    .rejected,
                    "invalid: #\(other.number) is archived, so #\(card.number) would not wait for it; restore it first "
                        + "(cork restore #\(other.number)); nothing was changed")
            }
            ops.append(remove ? .unblockCard(card: card.id, by: other.id) : .blockCard(card: card.id, by: other.id))
        }
        // All or nothing: each --by is one change, so a cycle made by the third would otherwise leave the first two
        // applied behind an error. Tried on a copy of the board first (the server checks again).
        var trial = board
        for op in ops {
            let context = ApplyContext(actor: "cork", role: .owner, now: Timestamp(milliseconds: 0), seq: trial.seq + 1)
            if case .failure(let rejection) = trial.apply(op, context: context) {
                throw CorkFailure(.rejected, "\(rejection.code.rawValue): \(rejection.message); nothing was changed")
            }
        }
        return (card.id, ops)
    }

    /// The `card.edit` of `cork edit`: at least one field, not both `--due` and `--no-due`, and not both a
    /// milestone and `--no-milestone`.
    public static func edit(
        _ card: Card, title: String?, description: String?, due: String?, clearDue: Bool,
        milestone: MilestoneID? = nil, clearMilestone: Bool = false
    ) throws(CorkFailure) -> Op {
        if due != nil, clearDue { throw CorkFailure.usage("give --due or --no-due, not both") }
        if milestone != nil, clearMilestone { throw CorkFailure.usage("give --milestone or --no-milestone, not both") }
        if let title, title.trimmingSpaces.isEmpty { throw emptyTitle }
        var edit = EditCard(card: card.id, title: title, description: description)
        if let due { edit.due = .set(try day(due)) }
        if clearDue { edit.due = .clear }
        if let milestone { edit.milestone = .set(milestone) }
        if clearMilestone { edit.milestone = .clear }
        if edit.isEmpty {
            throw CorkFailure.usage("nothing to change: give --title, --desc, --due, --no-due, --milestone or --no-milestone")
        }
        return .editCard(edit)
    }

    /// The card a reference names (exit 5 when none, 2 when ambiguous).
    public static func card(_ text: String, on board: Board) throws(CorkFailure) -> Card {
        try resolve { () throws(ResolutionError) in try CardReference.resolve(text, in: board) }
    }

    /// The member a reference names.
    public static func member(_ text: String, on board: Board) throws(CorkFailure) -> Member {
        try resolve { () throws(ResolutionError) in try MemberReference.resolve(text, in: board) }
    }

    /// A due date as typed: `YYYY-MM-DD`, or counted from `today` (UTC, the day the server's reminders use):
    /// `today`, `tomorrow`, `+3` or `+3d` (days), `+2w` (weeks), or a weekday (`fri`, `friday`: the next one after
    /// today). Exit 2 otherwise.
    public static func day(_ text: String, today: Day = CardOps.utcToday) throws(CorkFailure) -> Day {
        let typed = text.trimmingSpaces
        if let day = Day(typed) ?? relativeDay(typed.lowercased(), today: today) { return day }
        throw CorkFailure.usage(
            "\"\(text)\" is not a date; write YYYY-MM-DD, today, tomorrow, +3 (days), +2w (weeks) or a weekday (fri)")
    }

    /// Today in UTC, by this machine's clock.
    public static var utcToday: Day { Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000)).day }

    /// The weekdays' names, Monday first.
    static let weekdays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    static func relativeDay(_ text: String, today: Day) -> Day? {
        switch text {
        case "today": return today
        case "tomorrow": return today.adding(days: 1)
        default: break
        }
        if text.hasPrefix("+") {
            var digits = text.dropFirst()
            var unit = 1
            if digits.hasSuffix("d") { digits = digits.dropLast() } else if digits.hasSuffix("w") {
                digits = digits.dropLast()
                unit = 7
            }
            guard let count = Int(digits), (0...3_660).contains(count * unit) else { return nil }
            return today.adding(days: count * unit)
        }
        guard text.count >= 3, let wanted = weekdays.firstIndex(where: { $0.hasPrefix(text) }) else { return nil }
        // 1970-01-01, day 0, was a Thursday (index 3 with Monday 0).
        let current = ((today.daysSinceEpoch + 3) % 7 + 7) % 7
        let ahead = (wanted - current + 7) % 7
        return today.adding(days: ahead == 0 ? 7 : ahead)
    }

    static func resolve<T>(_ body: () throws(ResolutionError) -> T) throws(CorkFailure) -> T {
        do {
            return try body()
        } catch {
            throw CorkFailure(error)
        }
    }

    static func unique<T: Hashable>(_ values: [T]) -> [T] {
        var seen = Set<T>()
        return values.filter { seen.insert($0).inserted }
    }
}
