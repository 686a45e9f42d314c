/// The names of what an activity record mentions, as they were when the change was made.
///
/// History is read long after the change (`history`, a card's detail, a feed replayed): by then a card may have
/// another title and column, a column or label another name, or be gone. The reducer fills this in from the board
/// after the change (before it, for what the change removed), so each sentence can use the names of its own time.
/// Every field is optional: records stored before this existed have none, and a reader then falls back to the board.
public struct ActivityNames: Hashable, Sendable, Codable {
    /// The card's title (after the change; before it, when the change purged the card).
    public var title: String?
    /// The card's number.
    public var number: Int?
    /// Column names by id: the card's column, the columns in `changes`, the record's own column.
    public var columns: [String: String]?
    /// Label names by id: the labels a card change added or removed, the record's own label.
    public var labels: [String: String]?
    /// Milestone titles by id: the milestones in `changes`, the record's own milestone.
    public var milestones: [String: String]?
    /// The checklist item's text (checklist records).
    public var item: String?
    /// Other cards as `#N title` by id: the blockers a dependency change adds or removes, and those a forced move
    /// went past.
    public var cards: [String: String]?

    /// Names; nil fields are left out on the wire.
    public init(
        title: String? = nil, number: Int? = nil, columns: [String: String]? = nil, labels: [String: String]? = nil,
        milestones: [String: String]? = nil, item: String? = nil, cards: [String: String]? = nil
    ) {
        self.title = title
        self.number = number
        self.columns = columns
        self.labels = labels
        self.milestones = milestones
        self.item = item
        self.cards = cards
    }

    /// Whether nothing is named.
    public var isEmpty: Bool {
        title == nil && number == nil && columns == nil && labels == nil && milestones == nil && item == nil
            && cards == nil
    }
}

extension Board {
    /// The names `activity` (just made by the reducer on this board, the board after the change) mentions; nil
    /// when it mentions nothing with a name (chat, the board, members).
    func names(for activity: Activity) -> ActivityNames? {
        var names = ActivityNames()
        let changes = activity.changes
        func add(_ dictionary: inout [String: String]?, _ id: String, _ name: String?) {
            guard let name else { return }
            dictionary = (dictionary ?? [:]).merging([id: name]) { $1 }
        }
        func text(_ value: JSONValue?) -> String? {
            if case .string(let s)? = value { return s }
            return nil
        }
        func strings(_ value: JSONValue?) -> [String] {
            if case .array(let values)? = value { return values.compactMap { text($0) } }
            return []
        }
        if let id = activity.card {
            let card = cards[id]
            names.title = card?.title ?? text(changes["title"]?.old)
            if let number = card?.number {
                names.number = number
            } else if case .int(let n)? = changes["number"]?.old {
                names.number = Int(n)
            }
            if let column = card?.column { add(&names.columns, column.rawValue, self.column(column)?.name) }
            if let item = activity.item {
                names.item = card?.checklist.first { $0.id == item }?.text ?? text(changes["text"]?.old)
            }
        }
        if let change = changes["column"], activity.card != nil {
            for id in [text(change.old), text(change.new)].compactMap({ $0 }) {
                add(&names.columns, id, column(ColumnID(id))?.name)
            }
        }
        if let id = activity.column {
            add(&names.columns, id.rawValue, column(id)?.name ?? text(changes["name"]?.old))
        }
        if let change = changes["labels"], activity.card != nil {
            let old = strings(change.old)
            let new = strings(change.new)
            for id in new.filter({ !old.contains($0) }) + old.filter({ !new.contains($0) }) {
                add(&names.labels, id, label(LabelID(id))?.name)
            }
        }
        if let id = activity.label {
            add(&names.labels, id.rawValue, label(id)?.name ?? text(changes["name"]?.old))
        }
        if let change = changes["milestone"], activity.card != nil {
            for id in [text(change.old), text(change.new)].compactMap({ $0 }) {
                add(&names.milestones, id, milestone(MilestoneID(id))?.title)
            }
        }
        if let id = activity.milestone {
            add(&names.milestones, id.rawValue, milestone(id)?.title ?? text(changes["title"]?.old))
        }
        func cardName(_ id: String) -> String? { cards[CardID(id)].map { "#\($0.number) \($0.title)" } }
        if let change = changes["blocked_by"], activity.card != nil {
            let old = strings(change.old)
            let new = strings(change.new)
            for id in new.filter({ !old.contains($0) }) + old.filter({ !new.contains($0) }) {
                add(&names.cards, id, cardName(id))
            }
        }
        if activity.kind == Op.Kind.cardMove.rawValue, activity.text != nil, let id = activity.card, let card = cards[id] {
            for blocker in blockers(of: card) { add(&names.cards, blocker.id.rawValue, cardName(blocker.id.rawValue)) }
        }
        return names.isEmpty ? nil : names
    }
}
