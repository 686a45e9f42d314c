/// A subject's typed fields before or after an op: what `apply` computes the activity's `changes` from, field by
/// field, without turning the subject into JSON values (only the fields that changed become `JSONValue`s).
///
/// The changes are the same as diffing `Board.fields(of:)` before and after (a test checks it on generated ops):
/// an absent subject has no fields, an absent field and a nil one are both `null`.
enum SubjectState {
    case absent
    case board(name: String, remindHours: Int?)
    case member(Member)
    case column(Column, index: Int)
    case card(Card)
    case checklistItem(ChecklistItem)
    case comment(Comment)
    case label(Label)
    case milestone(Milestone)

    var member: Member? { if case .member(let m) = self { m } else { nil } }
    var column: (column: Column, index: Int)? { if case .column(let c, let i) = self { (c, i) } else { nil } }
    var card: Card? { if case .card(let c) = self { c } else { nil } }
    var checklistItem: ChecklistItem? { if case .checklistItem(let i) = self { i } else { nil } }
    var comment: Comment? { if case .comment(let c) = self { c } else { nil } }
    var label: Label? { if case .label(let l) = self { l } else { nil } }
    var milestone: Milestone? { if case .milestone(let m) = self { m } else { nil } }
}

/// The changed fields of a subject, noted one typed field at a time.
struct FieldChanges {
    var changes: [String: FieldChange] = [:]

    /// Notes `key` when its value differs; nil (an absent subject or field) is `null`.
    mutating func note<T: Equatable>(_ key: String, _ old: T?, _ new: T?, _ json: (T) -> JSONValue) {
        guard old != new else { return }
        changes[key] = FieldChange(old: old.map(json) ?? .null, new: new.map(json) ?? .null)
    }

    mutating func note(_ key: String, _ old: String?, _ new: String?) { note(key, old, new, JSONValue.string) }
    mutating func note(_ key: String, _ old: Bool?, _ new: Bool?) { note(key, old, new, JSONValue.bool) }
    mutating func note(_ key: String, _ old: Int?, _ new: Int?) { note(key, old, new) { .int(Int64($0)) } }
    mutating func note<Tag>(_ key: String, _ old: Identifier<Tag>?, _ new: Identifier<Tag>?) {
        note(key, old, new) { .string($0.rawValue) }
    }
    mutating func note(_ key: String, _ old: Day?, _ new: Day?) { note(key, old, new) { .string($0.description) } }
    mutating func note<Tag>(_ key: String, _ old: [Identifier<Tag>]?, _ new: [Identifier<Tag>]?) {
        note(key, old, new) { .strings($0.map(\.rawValue)) }
    }
}

extension Board {
    /// The subject's typed fields now.
    func state(of subject: Subject) -> SubjectState {
        switch subject {
        case .board: return .board(name: name, remindHours: remindHours)
        case .chat: return .absent
        case .member(let user): return members[user].map(SubjectState.member) ?? .absent
        case .column(let id):
            guard let index = columnIndex(id) else { return .absent }
            return .column(columns[index], index: index)
        case .card(let id): return cards[id].map(SubjectState.card) ?? .absent
        case .checklistItem(let card, let item):
            return cards[card]?.checklist.first { $0.id == item }.map(SubjectState.checklistItem) ?? .absent
        case .comment(let card, let comment):
            return cards[card]?.comments.first { $0.id == comment }.map(SubjectState.comment) ?? .absent
        case .label(let id): return label(id).map(SubjectState.label) ?? .absent
        case .milestone(let id): return milestone(id).map(SubjectState.milestone) ?? .absent
        }
    }

    /// The fields of `subject` that differ between two of its states, as `[old, new]`.
    static func changes(of subject: Subject, from a: SubjectState, to b: SubjectState) -> [String: FieldChange] {
        var c = FieldChanges()
        switch subject {
        case .chat: break
        case .board:
            if case .board(let old, let oldHours) = a, case .board(let new, let newHours) = b {
                c.note("name", old, new)
                c.note("remind_hours", oldHours, newHours)
            }
        case .member:
            c.note("role", a.member?.role.rawValue, b.member?.role.rawValue)
            c.note("name", a.member?.name, b.member?.name)
        case .column:
            c.note("name", a.column?.column.name, b.column?.column.name)
            c.note("index", a.column?.index, b.column?.index)
            c.note("wip_limit", a.column?.column.wip?.limit, b.column?.column.wip?.limit)
            c.note("wip_hard", a.column?.column.wip?.hard, b.column?.column.wip?.hard)
            c.note("in_progress", a.column?.column.inProgress, b.column?.column.inProgress)
        case .card:
            let (old, new) = (a.card, b.card)
            c.note("number", old?.number, new?.number)
            c.note("column", old?.column, new?.column)
            c.note("rank", old?.rank.rawValue, new?.rank.rawValue)
            c.note("title", old?.title, new?.title)
            c.note("description", old?.description, new?.description)
            c.note("due", old?.due, new?.due)
            c.note("labels", old?.labels, new?.labels)
            c.note("assignees", old?.assignees, new?.assignees)
            c.note("milestone", old?.milestone, new?.milestone)
            c.note("closed", old?.closed, new?.closed)
            c.note("archived", old?.archived, new?.archived)
            c.note("ref", old?.ref, new?.ref)
            // No blockers is `null`, as in `fields(of:)`: a new card's activity does not list an empty field.
            c.note("blocked_by", old.flatMap(\.blockers), new.flatMap(\.blockers))
            c.note("recur", old?.recur, new?.recur) { $0.json }
            c.note("watchers", old.flatMap { $0.watchers.isEmpty ? nil : $0.watchers }, new.flatMap { $0.watchers.isEmpty ? nil : $0.watchers })
        case .checklistItem:
            c.note("text", a.checklistItem?.text, b.checklistItem?.text)
            c.note("done", a.checklistItem?.done, b.checklistItem?.done)
        case .comment:
            c.note("text", a.comment?.text, b.comment?.text)
        case .label:
            c.note("name", a.label?.name, b.label?.name)
            c.note("color", a.label?.color.description, b.label?.color.description)
        case .milestone:
            c.note("title", a.milestone?.title, b.milestone?.title)
            c.note("description", a.milestone?.description, b.milestone?.description)
            c.note("due", a.milestone?.due, b.milestone?.due)
            c.note("closed", a.milestone?.closed, b.milestone?.closed)
        }
        return c.changes
    }
}

extension Card {
    /// `blocked_by` as activity changes and undo see it: nil when empty.
    var blockers: [CardID]? { blockedBy.isEmpty ? nil : blockedBy }
}
