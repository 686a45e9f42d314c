import BoardCore

/// Works out the ops of a Trello import, in order: columns, labels, then each card with its parts.
struct TrelloPlanner {
    let export: TrelloExport
    let board: Board
    var ops: [Op] = []
    var summary: TrelloImportSummary

    /// Column ids left to right, as they will be after the planned `column.add`s.
    var columnOrder: [ColumnID]
    /// Column names (normalized) to ids, board columns and planned ones.
    var columnsByName: [String: ColumnID] = [:]
    /// Trello list id to column id, for open lists that have one.
    var listColumns: [String: ColumnID] = [:]
    /// Trello label id to label id.
    var labelIDs: [String: LabelID] = [:]
    /// Ids in use per kind, the board's and the planned ones.
    var takenColumns: Set<String>
    var takenLabels: Set<String>
    var takenCards: Set<String>
    /// Unarchived cards per column after the planned ops so far (for hard WIP limits).
    var columnCounts: [ColumnID: Int] = [:]

    init(export: TrelloExport, board: Board) {
        self.export = export
        self.board = board
        var cut = false
        let name = ImportText.line(export.name ?? "", max: Limits.boardNameMaxCharacters, fallback: "Trello board", cut: &cut)
        summary = TrelloImportSummary(boardName: name)
        columnOrder = board.columns.map(\.id)
        takenColumns = Set(board.columns.map(\.id.rawValue))
        takenLabels = Set(board.labels.map(\.id.rawValue))
        takenCards = Set(board.cards.keys.map(\.rawValue)).union(board.purged.map(\.rawValue))
        for column in board.columns {
            columnsByName[Self.columnKey(column.name)] = columnsByName[Self.columnKey(column.name)] ?? column.id
            columnCounts[column.id] = board.count(in: column.id)
        }
    }

    mutating func plan() {
        planColumns()
        planLabels()
        planCards()
        planLeftovers()
    }

    /// The id for a Trello object: `t-<trello id>` made well-formed, made unique against `taken`, then taken.
    static func newID(_ trelloID: String, taken: inout Set<String>) -> String {
        let id = uniqueIdentifier(identifier(from: TrelloImport.idPrefix + trelloID, fallback: "t-"), taken: taken)
        taken.insert(id)
        return id
    }

    /// A column name for matching: lower-cased letters and digits only, so `To Do` finds TODO.
    static func columnKey(_ name: String) -> String {
        String(name.lowercased().unicodeScalars.filter { $0.properties.isAlphabetic || ("0"..."9").contains($0) }
            .map(Character.init))
    }

    // MARK: Columns

    private mutating func planColumns() {
        let open = Self.ordered(export.lists.filter { !$0.closed }, by: \.pos)
        var previous: ColumnID?
        for list in open {
            var cut = false
            let name = ImportText.line(list.name, max: Limits.columnNameMaxCharacters, fallback: "List", cut: &cut)
            let key = Self.columnKey(name)
            if let existing = columnsByName[key.isEmpty ? name.lowercased() : key] {
                listColumns[list.id] = existing
                summary.columnsReused += 1
                previous = existing
                continue
            }
            guard columnOrder.count < Limits.columnsMax else {
                summary.warnings.append(
                    "list \"\(name)\" has no column: a board has at most \(Limits.columnsMax) columns; "
                        + "its cards go to \(firstColumnName)")
                continue
            }
            if cut { summary.warnings.append("list name \"\(name)\" was cut to \(Limits.columnNameMaxCharacters) characters") }
            let id = ColumnID(Self.newID(list.id, taken: &takenColumns))
            let index = previous.flatMap { columnOrder.firstIndex(of: $0) }.map { $0 + 1 } ?? 0
            ops.append(.addColumn(column: id, name: name, index: index))
            columnOrder.insert(id, at: index)
            columnsByName[key.isEmpty ? name.lowercased() : key] = id
            columnCounts[id] = 0
            listColumns[list.id] = id
            summary.columnsCreated += 1
            previous = id
        }
    }

    /// The column for cards that have no column of their own (cards of closed or missing lists).
    var fallbackColumn: ColumnID? { columnOrder.first }

    private var firstColumnName: String {
        guard let first = columnOrder.first else { return "the first column" }
        return board.column(first)?.name ?? export.lists.first { listColumns[$0.id] == first }?.name ?? first.rawValue
    }

    // MARK: Labels

    private mutating func planLabels() {
        var byName: [String: LabelID] = [:]
        for label in board.labels { byName[label.name.lowercased()] = label.id }
        for label in export.labels {
            let rawName = label.name.flatMap { FeedText.oneLine($0).isEmpty ? nil : $0 }
                ?? TrelloColor.labelName(forColor: label.color)
            var cut = false
            let name = ImportText.line(rawName, max: Limits.labelNameMaxCharacters, fallback: "label", cut: &cut)
            if let existing = byName[name.lowercased()] {
                labelIDs[label.id] = existing
                continue
            }
            guard takenLabels.count < Limits.labelsMax else {
                summary.warnings.append("label \"\(name)\" was skipped: a board has at most \(Limits.labelsMax) labels")
                continue
            }
            if cut { summary.warnings.append("label name \"\(name)\" was cut to \(Limits.labelNameMaxCharacters) characters") }
            let id = LabelID(Self.newID(label.id, taken: &takenLabels))
            ops.append(.createLabel(label: id, name: name, color: TrelloColor.color(named: label.color)))
            byName[name.lowercased()] = id
            labelIDs[label.id] = id
            summary.labelsCreated += 1
        }
    }

    // MARK: Leftovers

    private mutating func planLeftovers() {
        let attachments = export.cards.reduce(0) { $0 + $1.attachmentCount }
        if attachments > 0 {
            summary.warnings.append(
                "\(attachments) attachment\(attachments == 1 ? " was" : "s were") not imported: "
                    + "Corkboard cards have no attachments")
        }
        let memberships = export.cards.reduce(0) { $0 + $1.idMembers.count }
        if memberships > 0 {
            summary.warnings.append(
                "\(memberships) card member\(memberships == 1 ? "" : "s") (of \(export.members.count) Trello "
                    + "member\(export.members.count == 1 ? "" : "s")) not assigned: Trello members are not "
                    + "Corkboard users; assign people with card.assign")
        }
    }

    /// `items` sorted by `pos`, ties in file order.
    static func ordered<T>(_ items: [T], by pos: (T) -> Double) -> [T] {
        items.enumerated().sorted { a, b in
            let pa = pos(a.element)
            let pb = pos(b.element)
            return pa != pb ? pa < pb : a.offset < b.offset
        }.map(\.element)
    }
}
