import BoardCore

extension TapeReader {
    /// The `op` object at `index`: an undo or an op, its fields read as `Op.init(from:)` reads them. A value out of
    /// range (a colour, a day, a role, a rank) is unsure: the general path makes it `.invalid` with its raw JSON.
    func opRequest(_ index: Int) throws(Unsure) -> OpRequest {
        let o = try object(index)
        let kindText = try string("kind", in: o)
        if kindText == OpRequest.undoKind { return .undo(seq: try integer(try value("seq", in: o))) }
        guard let kind = Op.Kind(rawValue: kindText) else { throw Unsure() }
        return .op(try op(kind, in: o))
    }

    private func op(_ kind: Op.Kind, in o: Int) throws(Unsure) -> Op {
        switch kind {
        case .boardRename: return .renameBoard(name: try string("name", in: o))
        case .boardRemind: return .setRemindHours(hours: try optionalInt("hours", in: o))
        case .memberSet:
            guard let role = Role(rawValue: try string("role", in: o)) else { throw Unsure() }
            return .setMember(user: try id("user", in: o), role: role, name: try optionalString("name", in: o))
        case .memberRemove: return .removeMember(user: try id("user", in: o))
        case .columnAdd:
            return .addColumn(
                column: try id("column", in: o), name: try string("name", in: o), index: try optionalInt("index", in: o))
        case .columnRename: return .renameColumn(column: try id("column", in: o), name: try string("name", in: o))
        case .columnMove: return .moveColumn(column: try id("column", in: o), index: try int("index", in: o))
        case .columnRemove: return .removeColumn(column: try id("column", in: o))
        case .columnInProgress:
            guard let on = try optionalBool("in_progress", in: o) else { throw Unsure() }
            return .setInProgress(column: try id("column", in: o), on: on)
        case .columnWIP:
            let column: ColumnID = try id("column", in: o)
            // `hard` is read only with a limit, as `Op.init(from:)` does.
            guard let limit = try optionalInt("limit", in: o) else { return .setWIPLimit(column: column, limit: nil) }
            return .setWIPLimit(
                column: column, limit: WIPLimit(limit: limit, hard: try optionalBool("hard", in: o) ?? false))
        case .cardAdd:
            return .addCard(
                AddCard(
                    card: try id("card", in: o), column: try optionalID("column", in: o), placement: try placement(o),
                    title: try string("title", in: o), description: try optionalString("description", in: o) ?? "",
                    due: try optionalString("due", in: o).map { text throws(Unsure) in try day(text) },
                    labels: try ids("labels", in: o), assignees: try ids("assignees", in: o),
                    milestone: try optionalID("milestone", in: o), ref: try optionalString("ref", in: o),
                    createdAt: try optionalInt("created_at", in: o).map { Timestamp(milliseconds: Int64($0)) }))
        case .cardEdit:
            return .editCard(
                EditCard(
                    card: try id("card", in: o), title: try optionalString("title", in: o),
                    description: try optionalString("description", in: o),
                    baseSeq: try optionalValue("base_seq", in: o).map { i throws(Unsure) in try integer(i) },
                    due: try clearable("due", in: o).map { c throws(Unsure) in try c.map(day) },
                    milestone: try clearable("milestone", in: o).map { c in c.map { MilestoneID($0) } },
                    ref: try clearable("ref", in: o)))
        case .cardMove:
            return .moveCard(
                card: try id("card", in: o), column: try id("to_column", in: o), placement: try placement(o),
                force: try optionalString("force", in: o))
        case .cardLabel: return .addLabel(card: try id("card", in: o), label: try id("label", in: o))
        case .cardUnlabel: return .removeLabel(card: try id("card", in: o), label: try id("label", in: o))
        case .cardAssign: return .assign(card: try id("card", in: o), user: try id("user", in: o))
        case .cardUnassign: return .unassign(card: try id("card", in: o), user: try id("user", in: o))
        case .cardBlock: return .blockCard(card: try id("card", in: o), by: try id("by", in: o))
        case .cardUnblock: return .unblockCard(card: try id("card", in: o), by: try id("by", in: o))
        case .cardRecur:
            let rule = try value("recur", in: o)
            if nodes[rule].kind == .null { return .setRecurrence(card: try id("card", in: o), recurrence: nil) }
            let r = try object(rule)
            return .setRecurrence(
                card: try id("card", in: o),
                recurrence: Recurrence(
                    every: try optionalString("every", in: r).map { text throws(Unsure) in
                        guard let every = Recurrence.Every(rawValue: text) else { throw Unsure() }
                        return every
                    },
                    days: try optionalValue("days", in: r).map { _ throws(Unsure) in try strings("days", in: r) },
                    day: try optionalInt("day", in: r), afterDoneDays: try optionalInt("after_done_days", in: r)))
        case .cardClose: return .closeCard(card: try id("card", in: o))
        case .cardReopen: return .reopenCard(card: try id("card", in: o))
        case .cardArchive: return .archiveCard(card: try id("card", in: o))
        case .cardRestore: return .restoreCard(card: try id("card", in: o))
        case .cardPurge: return .purgeCard(card: try id("card", in: o))
        case .cardWatch: return .watchCard(card: try id("card", in: o))
        case .cardUnwatch: return .unwatchCard(card: try id("card", in: o))
        case .checklistAdd:
            return .addChecklistItem(
                card: try id("card", in: o), item: try id("item", in: o), text: try string("text", in: o),
                done: try optionalBool("done", in: o) ?? false, index: try optionalInt("index", in: o))
        case .checklistEdit:
            return .editChecklistItem(
                card: try id("card", in: o), item: try id("item", in: o), text: try optionalString("text", in: o),
                done: try optionalBool("done", in: o))
        case .checklistRemove: return .removeChecklistItem(card: try id("card", in: o), item: try id("item", in: o))
        case .commentAdd:
            return .addComment(
                card: try id("card", in: o), comment: try id("comment", in: o), text: try string("text", in: o))
        case .commentEdit:
            return .editComment(
                card: try id("card", in: o), comment: try id("comment", in: o), text: try string("text", in: o))
        case .commentDelete: return .deleteComment(card: try id("card", in: o), comment: try id("comment", in: o))
        case .labelCreate:
            return .createLabel(
                label: try id("label", in: o), name: try string("name", in: o),
                color: try color(try string("color", in: o)))
        case .labelUpdate:
            return .updateLabel(
                label: try id("label", in: o), name: try optionalString("name", in: o),
                color: try optionalString("color", in: o).map { text throws(Unsure) in try color(text) })
        case .labelDelete: return .deleteLabel(label: try id("label", in: o))
        case .milestoneCreate:
            return .createMilestone(
                milestone: try id("milestone", in: o), title: try string("title", in: o),
                description: try optionalString("description", in: o),
                due: try optionalString("due", in: o).map { text throws(Unsure) in try day(text) })
        case .milestoneUpdate:
            return .updateMilestone(
                milestone: try id("milestone", in: o), title: try optionalString("title", in: o),
                description: try optionalString("description", in: o),
                due: try clearable("due", in: o).map { c throws(Unsure) in try c.map(day) })
        case .milestoneClose: return .closeMilestone(milestone: try id("milestone", in: o))
        case .milestoneReopen: return .reopenMilestone(milestone: try id("milestone", in: o))
        case .milestoneDelete: return .deleteMilestone(milestone: try id("milestone", in: o))
        case .chat: return .chat(text: try string("text", in: o))
        }
    }

    /// `after`, `before`, `index` and `rank`, each optional.
    private func placement(_ o: Int) throws(Unsure) -> Placement {
        Placement(
            after: try optionalID("after", in: o), before: try optionalID("before", in: o),
            index: try optionalInt("index", in: o),
            rank: try optionalString("rank", in: o).map { text throws(Unsure) in
                guard let rank = Rank(text) else { throw Unsure() }
                return rank
            })
    }

    /// A field that is left alone when absent, cleared by null and set by a string.
    private func clearable(_ name: StaticString, in o: Int) throws(Unsure) -> Clearable<String>? {
        guard let index = find(name, in: o) else { return nil }
        return nodes[index].kind == .null ? .clear : .set(try string(index))
    }

    /// An array of strings.
    private func strings(_ name: StaticString, in o: Int) throws(Unsure) -> [String] {
        let array = try value(name, in: o)
        guard nodes[array].kind == .array else { throw Unsure() }
        var out: [String] = []
        var i = array + 1
        while i < nodes[array].next {
            out.append(try string(i))
            i = nodes[i].next
        }
        return out
    }

    /// An optional array of identifiers (absent or null: none).
    private func ids<Tag>(_ name: StaticString, in o: Int) throws(Unsure) -> [Identifier<Tag>] {
        guard let array = try optionalValue(name, in: o) else { return [] }
        guard nodes[array].kind == .array else { throw Unsure() }
        var out: [Identifier<Tag>] = []
        out.reserveCapacity(Int(nodes[array].value))
        var i = array + 1
        while i < nodes[array].next {
            out.append(Identifier(try string(i)))
            i = nodes[i].next
        }
        return out
    }

    private func day(_ text: String) throws(Unsure) -> Day {
        guard let day = Day(text) else { throw Unsure() }
        return day
    }

    private func color(_ text: String) throws(Unsure) -> HexColor {
        guard let color = HexColor(text) else { throw Unsure() }
        return color
    }
}

extension Clearable {
    /// The same intent with the value transformed.
    fileprivate func map<T: Hashable & Sendable, E: Error>(_ transform: (Value) throws(E) -> T) throws(E) -> Clearable<T> {
        switch self {
        case .set(let value): .set(try transform(value))
        case .clear: .clear
        }
    }
}
