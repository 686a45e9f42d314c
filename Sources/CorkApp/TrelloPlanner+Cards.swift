import BoardCore

extension TrelloPlanner {
    /// Cards list by list (open lists in order, then closed ones), each followed by its checklist items, comments,
    /// close and archive.
    mutating func planCards() {
        let lists = Self.ordered(export.lists.filter { !$0.closed }, by: \.pos)
            + Self.ordered(export.lists.filter(\.closed), by: \.pos)
        let known = Set(export.lists.map(\.id))
        let byList = Dictionary(grouping: export.cards, by: \.idList)
        let checklists = Dictionary(grouping: export.checklists, by: \.idCard)
        let comments = commentsByCard()
        var seenLists: Set<String> = []
        for list in lists where seenLists.insert(list.id).inserted {
            for card in Self.ordered(byList[list.id] ?? [], by: \.pos) {
                planCard(card, in: list, checklists: checklists[card.id] ?? [], comments: comments[card.id] ?? [])
            }
        }
        let existing = summary.existingCards.count
        if existing > 0 {
            summary.warnings.append(
                "\(existing) card\(existing == 1 ? " is" : "s are") already on the board (same Trello ref) and "
                    + "\(existing == 1 ? "was" : "were") skipped")
        }
        for card in export.cards where !known.contains(card.idList) {
            summary.warnings.append(
                "card \(FeedText.quotedTitle(card.name)) was skipped: its list \(card.idList) is not in the export")
        }
        let leads = export.cards.compactMap { $0.due == nil ? nil : $0.dueReminder }.filter { $0 >= 0 }
        if !leads.isEmpty {
            // The lead most cards had, in whole hours (rounded up), for `cork board remind`.
            let counts = Dictionary(leads.map { ($0, 1) }, uniquingKeysWith: +)
            let common = counts.max { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }!.key
            let hours = min(Limits.remindHoursRange.upperBound, (common + 59) / 60)
            summary.warnings.append(
                "\(leads.count) Trello due reminder\(leads.count == 1 ? " was" : "s were") not imported: Corkboard reminds "
                    + "a card's assignees and watchers through their inbox ahead of its due day by the board's lead time "
                    + "(a day unless set) and when it is overdue; `cork board remind \(hours)` matches Trello's \(common) minutes")
        }
        let cardIDs = Set(export.cards.map(\.id))
        let orphans = comments.filter { !cardIDs.contains($0.key) }.reduce(0) { $0 + $1.value.count }
        if orphans > 0 {
            summary.warnings.append("\(orphans) comment\(orphans == 1 ? " was" : "s were") skipped: on cards not in the export")
        }
    }

    private mutating func planCard(
        _ card: TrelloExport.Card, in list: TrelloExport.List, checklists: [TrelloExport.Checklist],
        comments: [TrelloExport.Action]
    ) {
        let ref = identifierRef(card.shortLink ?? card.id)
        // Imported before: nothing of it is sent again (the server would refuse the add as duplicate_ref).
        if let existing = board.card(ref: ref) {
            summary.existingCards.append(existing.id)
            return
        }
        var cut = false
        let title = ImportText.line(card.name, max: Limits.titleMaxCharacters, fallback: "Untitled card", cut: &cut)
        let quoted = FeedText.quotedTitle(title)
        guard board.cards.count + summary.cards < Limits.cardsMax else {
            summary.warnings.append("card \(quoted) was skipped: a board holds at most \(Limits.cardsMax) cards")
            return
        }
        let column = list.closed
            ? columnsByName[Self.columnKey(list.name)] ?? fallbackColumn : listColumns[list.id] ?? fallbackColumn
        guard let column else {
            summary.warnings.append("card \(quoted) was skipped: the board has no column")
            return
        }
        if cut { summary.warnings.append("the title of card \(quoted) was cut to \(Limits.titleMaxCharacters) characters") }
        cut = false
        let description = ImportText.text(card.desc, maxBytes: Limits.descriptionMaxBytes, cut: &cut)
        if cut { summary.warnings.append("the description of card \(quoted) was cut to \(Limits.descriptionMaxBytes) bytes") }
        let due = ImportText.day(card.due)
        if card.due != nil && due == nil {
            summary.warnings.append("card \(quoted): due date \(card.due!) was not understood and left out")
        }
        var labels: [LabelID] = []
        for trelloLabel in card.idLabels {
            guard let id = labelIDs[trelloLabel] else { continue }
            if !labels.contains(id) { labels.append(id) }
        }
        if labels.count > Limits.labelsPerCardMax {
            summary.warnings.append("card \(quoted) keeps its first \(Limits.labelsPerCardMax) labels")
            labels = Array(labels.prefix(Limits.labelsPerCardMax))
        }
        let archived = card.closed || list.closed
        if let wip = board.column(column)?.wip, wip.hard, (columnCounts[column] ?? 0) + 1 > wip.limit {
            let name = board.column(column)?.name ?? column.rawValue
            summary.warnings.append(
                "card \(quoted) will be refused: \(name) has a hard WIP limit of \(wip.limit)")
        }
        if !archived { columnCounts[column, default: 0] += 1 }

        let id = CardID(Self.newID(card.id, taken: &takenCards))
        ops.append(.addCard(AddCard(
            card: id, column: column, title: title, description: description, due: due, labels: labels, ref: ref,
            createdAt: Self.creationTime(ofID: card.id))))
        summary.cards += 1
        planChecklists(checklists, of: card, id: id, quoted: quoted)
        planComments(comments, id: id, quoted: quoted)
        if card.dueComplete {
            ops.append(.closeCard(card: id))
            summary.closed += 1
        }
        if archived {
            ops.append(.archiveCard(card: id))
            summary.archived += 1
        }
    }

    /// The names Trello gives a new checklist (in its English, German, French and Spanish interfaces), as `columnKey`s.
    static let defaultChecklistNames: Set<String> = ["", "checklist", "checkliste", "todo", "lista de verificación"]
        .reduce(into: []) { $0.insert(columnKey($1)) }

    /// When Trello made the object: a Trello id is a MongoDB ObjectId, whose first 8 hex digits are its creation time in
    /// seconds since the epoch. Nil for an id that is not one (a time in the future is the server's to cap).
    static func creationTime(ofID id: String) -> Timestamp? {
        guard id.utf8.count == 24, let seconds = Int64(id.prefix(8), radix: 16) else { return nil }
        return Timestamp(milliseconds: seconds * 1000)
    }

    /// `trello:<short link>`, without spaces or control characters, at most `Limits.refMaxCharacters`.
    private func identifierRef(_ link: String) -> String {
        let clean = String(link.unicodeScalars.filter { !$0.properties.isWhitespace && $0.value >= 0x20 }.map(Character.init))
        return String((TrelloImport.refPrefix + clean).prefix(Limits.refMaxCharacters))
    }

    private mutating func planChecklists(
        _ checklists: [TrelloExport.Checklist], of card: TrelloExport.Card, id: CardID, quoted: String
    ) {
        // Trello orders a card's checklists by pos; idChecklists breaks ties when pos is missing.
        let rank = Dictionary(card.idChecklists.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        let sorted = checklists.enumerated().sorted { a, b in
            if a.element.pos != b.element.pos { return a.element.pos < b.element.pos }
            let ra = rank[a.element.id] ?? Int.max
            let rb = rank[b.element.id] ?? Int.max
            return ra != rb ? ra < rb : a.offset < b.offset
        }.map(\.element)
        // Corkboard has one unnamed checklist per card: items carry their checklist's name unless the card has a
        // single checklist with Trello's default name.
        let prefixed = sorted.count > 1
            || sorted.first.map { !Self.defaultChecklistNames.contains(Self.columnKey($0.name)) } ?? false
        var taken: Set<String> = []
        var count = 0
        var cutCount = 0
        var skipped = 0
        for checklist in sorted {
            for item in Self.ordered(checklist.checkItems, by: \.pos) {
                let raw = prefixed ? "\(FeedText.oneLine(checklist.name)): \(item.name)" : item.name
                guard !FeedText.oneLine(item.name).isEmpty else { continue }
                guard count < Limits.checklistItemsMax else {
                    skipped += 1
                    continue
                }
                var cut = false
                let text = ImportText.line(raw, max: Limits.checklistTextMaxCharacters, fallback: "item", cut: &cut)
                if cut { cutCount += 1 }
                let itemID = ChecklistItemID(Self.newID(item.id, taken: &taken))
                ops.append(.addChecklistItem(card: id, item: itemID, text: text, done: item.state == "complete", index: nil))
                count += 1
                summary.checklistItems += 1
            }
        }
        if skipped > 0 {
            summary.warnings.append(
                "card \(quoted): \(skipped) checklist item\(skipped == 1 ? " was" : "s were") skipped "
                    + "(at most \(Limits.checklistItemsMax) per card)")
        }
        if cutCount > 0 {
            summary.warnings.append(
                "card \(quoted): \(cutCount) checklist item\(cutCount == 1 ? " was" : "s were") cut to "
                    + "\(Limits.checklistTextMaxCharacters) characters")
        }
    }

    private mutating func planComments(_ actions: [TrelloExport.Action], id: CardID, quoted: String) {
        var taken: Set<String> = []
        var count = 0
        for action in actions {
            guard let body = action.data?.text, !FeedText.oneLine(body).isEmpty else { continue }
            guard count < Limits.commentsPerCardMax else {
                summary.warnings.append("card \(quoted): comments past \(Limits.commentsPerCardMax) were skipped")
                return
            }
            let who = [action.memberCreator?.fullName, action.memberCreator?.username]
                .compactMap { $0.map(FeedText.oneLine) }.first { !$0.isEmpty } ?? "Someone"
            let when = ImportText.day(action.date).map { " (\($0))" } ?? ""
            var cut = false
            let text = ImportText.text("\(who)\(when): \(body)", maxBytes: Limits.commentMaxBytes, cut: &cut)
            if cut { summary.warnings.append("card \(quoted): a comment was cut to \(Limits.commentMaxBytes) bytes") }
            let commentID = CommentID(Self.newID(action.id ?? "comment-\(count + 1)", taken: &taken))
            ops.append(.addComment(card: id, comment: commentID, text: text))
            count += 1
            summary.comments += 1
        }
    }

    /// `commentCard` actions by Trello card id, oldest first (Trello lists actions newest first).
    private func commentsByCard() -> [String: [TrelloExport.Action]] {
        var result: [String: [(offset: Int, action: TrelloExport.Action)]] = [:]
        for (offset, action) in export.actions.enumerated() where action.type == "commentCard" {
            guard let card = action.data?.card?.id else { continue }
            result[card, default: []].append((offset, action))
        }
        return result.mapValues { entries in
            entries.sorted { a, b in
                let da = a.action.date ?? ""
                let db = b.action.date ?? ""
                // Same instant: the later entry in Trello's newest-first list is the older one.
                return da != db ? da < db : a.offset > b.offset
            }.map(\.action)
        }
    }
}
