import BoardCore

/// Names for the ids in one activity record: from the record's own `names` (the names at the change), else the board
/// after the change, else the board before it, else the record's `changes`, else the id itself.
///
/// Records stored before `names` existed fall back to the boards, so an old change may show today's names.
struct FeedLookup {
    let activity: Activity
    let after: Board
    let before: Board?
    /// Longest comment, chat or description text the sentence shows (`Int.max`: all of it).
    var textMax: Int = FeedText.textMax

    /// The names the record carries.
    var names: ActivityNames? { activity.names }

    /// The change of `field`, if the record has one.
    func change(_ field: String) -> FieldChange? { activity.changes[field] }

    /// The old value of `field` as text (nil when absent, null or not a string).
    func old(_ field: String) -> String? { change(field)?.old.text }

    /// The new value of `field` as text (nil when absent, null or not a string).
    func new(_ field: String) -> String? { change(field)?.new.text }

    /// `#12 "Title"` for the record's card, or `card c3` when nothing is known of it.
    var card: String { card(title: nil) }

    /// `#12 "title"`, with the given title instead of the card's own.
    func card(title override: String?) -> String {
        guard let id = activity.card else { return "a card" }
        let known = after.cards[id] ?? before?.cards[id]
        let number: Int? = names?.number ?? known?.number
            ?? change("number").flatMap { $0.new.int ?? $0.old.int }.map { Int($0) }
        let title = override ?? names?.title ?? known?.title ?? new("title") ?? old("title")
        switch (number, title) {
        case (let n?, let t?): return "#\(n) \(FeedText.quotedTitle(t))"
        case (let n?, nil): return "#\(n)"
        case (nil, let t?): return "card \(id) \(FeedText.quotedTitle(t))"
        case (nil, nil): return "card \(id)"
        }
    }

    /// `#2 "Fix login"` for another card the record names (a blocker), by id.
    func otherCard(_ id: String) -> String {
        if let card = after.cards[CardID(id)] ?? before?.cards[CardID(id)] {
            return "#\(card.number) \(FeedText.quotedTitle(card.title))"
        }
        if let named = names?.cards?[id], let space = named.firstIndex(of: " ") {
            return "\(named[..<space]) \(FeedText.quotedTitle(String(named[named.index(after: space)...])))"
        }
        return "card \(id)"
    }

    /// The display name of a column, by id.
    func column(_ id: ColumnID) -> String {
        names?.columns?[id.rawValue] ?? after.column(id)?.name ?? before?.column(id)?.name ?? id.rawValue
    }

    /// The name of the column the record's card was in after the change: the move's target, else the one column
    /// the record names, else where the card is now.
    var cardColumn: String? {
        if let target = change("column")?.new.text { return column(ColumnID(target)) }
        if let columns = names?.columns, columns.count == 1 { return columns.values.first }
        return activity.card.flatMap { after.cards[$0]?.column }.map { column($0) }
    }

    /// The column named by a `[old, new]` value that holds a column id.
    func column(_ value: JSONValue) -> String? { value.text.map { column(ColumnID($0)) } }

    /// The record's column (column ops): its name after the change, before it, or from `changes`.
    var subjectColumn: String {
        guard let id = activity.column else { return "a column" }
        return names?.columns?[id.rawValue] ?? after.column(id)?.name ?? new("name") ?? old("name") ?? before?.column(id)?.name ?? id.rawValue
    }

    /// The name of a label, by id.
    func label(_ id: LabelID) -> String {
        names?.labels?[id.rawValue] ?? after.label(id)?.name ?? before?.label(id)?.name ?? id.rawValue
    }

    /// The record's label (label ops): its name after the change, before it, or from `changes`.
    var subjectLabel: String {
        guard let id = activity.label else { return "a label" }
        return names?.labels?[id.rawValue] ?? after.label(id)?.name ?? new("name") ?? old("name") ?? before?.label(id)?.name ?? id.rawValue
    }

    /// The title of a milestone, by id.
    func milestone(_ id: MilestoneID) -> String {
        names?.milestones?[id.rawValue] ?? after.milestone(id)?.title ?? before?.milestone(id)?.title ?? id.rawValue
    }

    /// The record's milestone (milestone ops): its title after the change, before it, or from `changes`.
    var subjectMilestone: String {
        guard let id = activity.milestone else { return "a milestone" }
        return names?.milestones?[id.rawValue] ?? after.milestone(id)?.title ?? new("title") ?? old("title") ?? before?.milestone(id)?.title
            ?? id.rawValue
    }

    /// The record's checklist item text: from `changes`, else the card after or before.
    var itemText: String {
        let text = new("text") ?? old("text") ?? names?.item
            ?? activity.item.flatMap { item in
                let card = activity.card.flatMap { after.cards[$0] ?? before?.cards[$0] }
                return card?.checklist.first { $0.id == item }?.text
            }
        return text.map { FeedText.quotedTitle($0) } ?? "an item"
    }

    /// The strings added to and removed from an array field such as `labels`.
    func arrayDelta(_ field: String) -> (added: [String], removed: [String]) {
        guard let change = change(field) else { return ([], []) }
        let old = change.old.strings
        let new = change.new.strings
        return (new.filter { !old.contains($0) }, old.filter { !new.contains($0) })
    }
}

extension JSONValue {
    /// The string, when this is one.
    var text: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The integer, when this is one.
    var int: Int64? {
        if case .int(let i) = self { return i }
        return nil
    }

    /// The boolean, when this is one.
    var bool: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The strings of an array (other elements skipped); empty when this is not an array.
    var strings: [String] {
        if case .array(let values) = self { return values.compactMap(\.text) }
        return []
    }
}
