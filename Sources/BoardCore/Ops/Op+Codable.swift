extension Op: Codable {
    enum Key: String, CodingKey {
        case kind, name, user, role, column, index, limit, hard, card, placement
        case toColumn = "to_column"
        case after, before, rank, title, description
        case baseSeq = "base_seq"
        case due, labels, assignees, milestone, ref, label, item, text, done, comment, color, by, force, recur
        case inProgress = "in_progress"
        case hours
        case createdAt = "created_at"
    }

    /// Decodes an op from its flat JSON object; `kind` picks the case. Unknown fields are ignored.
    ///
    /// A field of the wrong JSON type, or a missing one, throws `DecodingError`. A field of the right JSON type whose
    /// value its Swift type cannot hold (a colour that is not `#rrggbb`, a date that is not a date, an unknown role,
    /// a malformed rank) throws `OpDecodingError.invalidValue`: the op is well-formed, and a server answers it with
    /// the reject `invalid`, as it does for every other value out of range (Protocol.md, "JSON rules").
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        let kind = try c.decode(String.self, forKey: .kind)
        do {
            try self.init(kind: kind, fields: c)
        } catch DecodingError.dataCorrupted(let context) {
            let field = context.codingPath.last { $0.intValue == nil }?.stringValue ?? "op"
            throw OpDecodingError.invalidValue(kind: kind, field: field, reason: context.readableReason)
        }
    }

    /// Decodes the fields of an op of `kind`.
    private init(kind: String, fields c: KeyedDecodingContainer<Key>) throws {
        func card() throws -> CardID { try c.decode(CardID.self, forKey: .card) }
        func placement() throws -> Placement {
            Placement(
                after: try c.decodeIfPresent(CardID.self, forKey: .after),
                before: try c.decodeIfPresent(CardID.self, forKey: .before),
                index: try c.decodeIfPresent(Int.self, forKey: .index),
                rank: try c.decodeIfPresent(Rank.self, forKey: .rank))
        }
        func clearable<T: Decodable & Hashable & Sendable>(_ type: T.Type, _ key: Key) throws -> Clearable<T>? {
            guard c.contains(key) else { return nil }
            return try c.decodeNil(forKey: key) ? .clear : .set(c.decode(T.self, forKey: key))
        }
        // An exhaustive switch over the closed set of kinds: a new op kind does not compile until it decodes here.
        guard let known = Op.Kind(rawValue: kind) else { throw OpDecodingError.unknownKind(kind) }
        switch known {
        case .boardRename: self = .renameBoard(name: try c.decode(String.self, forKey: .name))
        case .boardRemind: self = .setRemindHours(hours: try c.decodeIfPresent(Int.self, forKey: .hours))
        case .memberSet:
            self = .setMember(
                user: try c.decode(UserID.self, forKey: .user), role: try c.decode(Role.self, forKey: .role),
                name: try c.decodeIfPresent(String.self, forKey: .name))
        case .memberRemove: self = .removeMember(user: try c.decode(UserID.self, forKey: .user))
        case .columnAdd:
            self = .addColumn(
                column: try c.decode(ColumnID.self, forKey: .column), name: try c.decode(String.self, forKey: .name),
                index: try c.decodeIfPresent(Int.self, forKey: .index))
        case .columnRename:
            self = .renameColumn(
                column: try c.decode(ColumnID.self, forKey: .column), name: try c.decode(String.self, forKey: .name))
        case .columnMove:
            self = .moveColumn(
                column: try c.decode(ColumnID.self, forKey: .column), index: try c.decode(Int.self, forKey: .index))
        case .columnRemove: self = .removeColumn(column: try c.decode(ColumnID.self, forKey: .column))
        case .columnWIP:
            let column = try c.decode(ColumnID.self, forKey: .column)
            if let limit = try c.decodeIfPresent(Int.self, forKey: .limit) {
                let hard = try c.decodeIfPresent(Bool.self, forKey: .hard) ?? false
                self = .setWIPLimit(column: column, limit: WIPLimit(limit: limit, hard: hard))
            } else {
                self = .setWIPLimit(column: column, limit: nil)
            }
        case .columnInProgress:
            self = .setInProgress(
                column: try c.decode(ColumnID.self, forKey: .column), on: try c.decode(Bool.self, forKey: .inProgress))
        case .cardAdd:
            self = .addCard(
                AddCard(
                    card: try card(), column: try c.decodeIfPresent(ColumnID.self, forKey: .column),
                    placement: try placement(), title: try c.decode(String.self, forKey: .title),
                    description: try c.decodeIfPresent(String.self, forKey: .description) ?? "",
                    due: try c.decodeIfPresent(Day.self, forKey: .due),
                    labels: try c.decodeIfPresent([LabelID].self, forKey: .labels) ?? [],
                    assignees: try c.decodeIfPresent([UserID].self, forKey: .assignees) ?? [],
                    milestone: try c.decodeIfPresent(MilestoneID.self, forKey: .milestone),
                    ref: try c.decodeIfPresent(String.self, forKey: .ref),
                    createdAt: try c.decodeIfPresent(Timestamp.self, forKey: .createdAt)))
        case .cardEdit:
            self = .editCard(
                EditCard(
                    card: try card(), title: try c.decodeIfPresent(String.self, forKey: .title),
                    description: try c.decodeIfPresent(String.self, forKey: .description),
                    baseSeq: try c.decodeIfPresent(UInt64.self, forKey: .baseSeq),
                    due: try clearable(Day.self, .due), milestone: try clearable(MilestoneID.self, .milestone),
                    ref: try clearable(String.self, .ref)))
        case .cardMove:
            self = .moveCard(
                card: try card(), column: try c.decode(ColumnID.self, forKey: .toColumn), placement: try placement(),
                force: try c.decodeIfPresent(String.self, forKey: .force))
        case .cardLabel: self = .addLabel(card: try card(), label: try c.decode(LabelID.self, forKey: .label))
        case .cardUnlabel: self = .removeLabel(card: try card(), label: try c.decode(LabelID.self, forKey: .label))
        case .cardAssign: self = .assign(card: try card(), user: try c.decode(UserID.self, forKey: .user))
        case .cardUnassign: self = .unassign(card: try card(), user: try c.decode(UserID.self, forKey: .user))
        case .cardBlock: self = .blockCard(card: try card(), by: try c.decode(CardID.self, forKey: .by))
        case .cardUnblock: self = .unblockCard(card: try card(), by: try c.decode(CardID.self, forKey: .by))
        case .cardRecur:
            guard c.contains(.recur) else {
                throw DecodingError.keyNotFound(Key.recur, .init(codingPath: c.codingPath, debugDescription: "missing recur"))
            }
            self = .setRecurrence(card: try card(), recurrence: try c.decodeNil(forKey: .recur) ? nil : c.decode(Recurrence.self, forKey: .recur))
        case .cardWatch: self = .watchCard(card: try card())
        case .cardUnwatch: self = .unwatchCard(card: try card())
        case .cardClose: self = .closeCard(card: try card())
        case .cardReopen: self = .reopenCard(card: try card())
        case .cardArchive: self = .archiveCard(card: try card())
        case .cardRestore: self = .restoreCard(card: try card())
        case .cardPurge: self = .purgeCard(card: try card())
        case .checklistAdd:
            self = .addChecklistItem(
                card: try card(), item: try c.decode(ChecklistItemID.self, forKey: .item),
                text: try c.decode(String.self, forKey: .text),
                done: try c.decodeIfPresent(Bool.self, forKey: .done) ?? false,
                index: try c.decodeIfPresent(Int.self, forKey: .index))
        case .checklistEdit:
            self = .editChecklistItem(
                card: try card(), item: try c.decode(ChecklistItemID.self, forKey: .item),
                text: try c.decodeIfPresent(String.self, forKey: .text),
                done: try c.decodeIfPresent(Bool.self, forKey: .done))
        case .checklistRemove:
            self = .removeChecklistItem(card: try card(), item: try c.decode(ChecklistItemID.self, forKey: .item))
        case .commentAdd:
            self = .addComment(
                card: try card(), comment: try c.decode(CommentID.self, forKey: .comment),
                text: try c.decode(String.self, forKey: .text))
        case .commentEdit:
            self = .editComment(
                card: try card(), comment: try c.decode(CommentID.self, forKey: .comment),
                text: try c.decode(String.self, forKey: .text))
        case .commentDelete:
            self = .deleteComment(card: try card(), comment: try c.decode(CommentID.self, forKey: .comment))
        case .labelCreate:
            self = .createLabel(
                label: try c.decode(LabelID.self, forKey: .label), name: try c.decode(String.self, forKey: .name),
                color: try c.decode(HexColor.self, forKey: .color))
        case .labelUpdate:
            self = .updateLabel(
                label: try c.decode(LabelID.self, forKey: .label),
                name: try c.decodeIfPresent(String.self, forKey: .name),
                color: try c.decodeIfPresent(HexColor.self, forKey: .color))
        case .labelDelete: self = .deleteLabel(label: try c.decode(LabelID.self, forKey: .label))
        case .milestoneCreate:
            self = .createMilestone(
                milestone: try c.decode(MilestoneID.self, forKey: .milestone),
                title: try c.decode(String.self, forKey: .title),
                description: try c.decodeIfPresent(String.self, forKey: .description),
                due: try c.decodeIfPresent(Day.self, forKey: .due))
        case .milestoneUpdate:
            self = .updateMilestone(
                milestone: try c.decode(MilestoneID.self, forKey: .milestone),
                title: try c.decodeIfPresent(String.self, forKey: .title),
                description: try c.decodeIfPresent(String.self, forKey: .description),
                due: try clearable(Day.self, .due))
        case .milestoneClose: self = .closeMilestone(milestone: try c.decode(MilestoneID.self, forKey: .milestone))
        case .milestoneReopen:
            self = .reopenMilestone(milestone: try c.decode(MilestoneID.self, forKey: .milestone))
        case .milestoneDelete:
            self = .deleteMilestone(milestone: try c.decode(MilestoneID.self, forKey: .milestone))
        case .chat: self = .chat(text: try c.decode(String.self, forKey: .text))
        }
    }

    /// Encodes the op as a flat JSON object with `kind` first; nil fields are left out.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(kind, forKey: .kind)
        func placement(_ p: Placement) throws {
            try c.encodeIfPresent(p.after, forKey: .after)
            try c.encodeIfPresent(p.before, forKey: .before)
            try c.encodeIfPresent(p.index, forKey: .index)
            try c.encodeIfPresent(p.rank, forKey: .rank)
        }
        func clearable<T: Encodable & Hashable & Sendable>(_ value: Clearable<T>?, _ key: Key) throws {
            switch value {
            case nil: break
            case .clear?: try c.encodeNil(forKey: key)
            case .set(let v)?: try c.encode(v, forKey: key)
            }
        }
        switch self {
        case .renameBoard(let name): try c.encode(name, forKey: .name)
        case .setRemindHours(let hours):
            if let hours { try c.encode(hours, forKey: .hours) } else { try c.encodeNil(forKey: .hours) }
        case .setMember(let user, let role, let name):
            try c.encode(user, forKey: .user)
            try c.encode(role, forKey: .role)
            try c.encodeIfPresent(name, forKey: .name)
        case .removeMember(let user): try c.encode(user, forKey: .user)
        case .addColumn(let column, let name, let index):
            try c.encode(column, forKey: .column)
            try c.encode(name, forKey: .name)
            try c.encodeIfPresent(index, forKey: .index)
        case .renameColumn(let column, let name):
            try c.encode(column, forKey: .column)
            try c.encode(name, forKey: .name)
        case .moveColumn(let column, let index):
            try c.encode(column, forKey: .column)
            try c.encode(index, forKey: .index)
        case .removeColumn(let column): try c.encode(column, forKey: .column)
        case .setWIPLimit(let column, let limit):
            try c.encode(column, forKey: .column)
            if let limit {
                try c.encode(limit.limit, forKey: .limit)
                try c.encode(limit.hard, forKey: .hard)
            } else {
                try c.encodeNil(forKey: .limit)
            }
        case .addCard(let a):
            try c.encode(a.card, forKey: .card)
            try c.encodeIfPresent(a.column, forKey: .column)
            try placement(a.placement)
            try c.encode(a.title, forKey: .title)
            if !a.description.isEmpty { try c.encode(a.description, forKey: .description) }
            try c.encodeIfPresent(a.due, forKey: .due)
            if !a.labels.isEmpty { try c.encode(a.labels, forKey: .labels) }
            if !a.assignees.isEmpty { try c.encode(a.assignees, forKey: .assignees) }
            try c.encodeIfPresent(a.milestone, forKey: .milestone)
            try c.encodeIfPresent(a.ref, forKey: .ref)
            try c.encodeIfPresent(a.createdAt, forKey: .createdAt)
        case .editCard(let e):
            try c.encode(e.card, forKey: .card)
            try c.encodeIfPresent(e.title, forKey: .title)
            try c.encodeIfPresent(e.description, forKey: .description)
            try c.encodeIfPresent(e.baseSeq, forKey: .baseSeq)
            try clearable(e.due, .due)
            try clearable(e.milestone, .milestone)
            try clearable(e.ref, .ref)
        case .moveCard(let card, let column, let p, let force):
            try c.encode(card, forKey: .card)
            try c.encode(column, forKey: .toColumn)
            try placement(p)
            try c.encodeIfPresent(force, forKey: .force)
        case .addLabel(let card, let label), .removeLabel(let card, let label):
            try c.encode(card, forKey: .card)
            try c.encode(label, forKey: .label)
        case .assign(let card, let user), .unassign(let card, let user):
            try c.encode(card, forKey: .card)
            try c.encode(user, forKey: .user)
        case .blockCard(let card, let by), .unblockCard(let card, let by):
            try c.encode(card, forKey: .card)
            try c.encode(by, forKey: .by)
        case .setRecurrence(let card, let recurrence):
            try c.encode(card, forKey: .card)
            if let recurrence { try c.encode(recurrence, forKey: .recur) } else { try c.encodeNil(forKey: .recur) }
        case .setInProgress(let column, let on):
            try c.encode(column, forKey: .column)
            try c.encode(on, forKey: .inProgress)
        case .closeCard(let card), .reopenCard(let card), .archiveCard(let card), .restoreCard(let card),
            .purgeCard(let card), .watchCard(let card), .unwatchCard(let card):
            try c.encode(card, forKey: .card)
        case .addChecklistItem(let card, let item, let text, let done, let index):
            try c.encode(card, forKey: .card)
            try c.encode(item, forKey: .item)
            try c.encode(text, forKey: .text)
            if done { try c.encode(done, forKey: .done) }
            try c.encodeIfPresent(index, forKey: .index)
        case .editChecklistItem(let card, let item, let text, let done):
            try c.encode(card, forKey: .card)
            try c.encode(item, forKey: .item)
            try c.encodeIfPresent(text, forKey: .text)
            try c.encodeIfPresent(done, forKey: .done)
        case .removeChecklistItem(let card, let item):
            try c.encode(card, forKey: .card)
            try c.encode(item, forKey: .item)
        case .addComment(let card, let comment, let text), .editComment(let card, let comment, let text):
            try c.encode(card, forKey: .card)
            try c.encode(comment, forKey: .comment)
            try c.encode(text, forKey: .text)
        case .deleteComment(let card, let comment):
            try c.encode(card, forKey: .card)
            try c.encode(comment, forKey: .comment)
        case .createLabel(let label, let name, let color):
            try c.encode(label, forKey: .label)
            try c.encode(name, forKey: .name)
            try c.encode(color, forKey: .color)
        case .updateLabel(let label, let name, let color):
            try c.encode(label, forKey: .label)
            try c.encodeIfPresent(name, forKey: .name)
            try c.encodeIfPresent(color, forKey: .color)
        case .deleteLabel(let label): try c.encode(label, forKey: .label)
        case .createMilestone(let milestone, let title, let description, let due):
            try c.encode(milestone, forKey: .milestone)
            try c.encode(title, forKey: .title)
            try c.encodeIfPresent(description, forKey: .description)
            try c.encodeIfPresent(due, forKey: .due)
        case .updateMilestone(let milestone, let title, let description, let due):
            try c.encode(milestone, forKey: .milestone)
            try c.encodeIfPresent(title, forKey: .title)
            try c.encodeIfPresent(description, forKey: .description)
            try clearable(due, .due)
        case .closeMilestone(let m), .reopenMilestone(let m), .deleteMilestone(let m):
            try c.encode(m, forKey: .milestone)
        case .chat(let text): try c.encode(text, forKey: .text)
        }
    }
}

/// Why an op could not be decoded, beyond a field missing or of the wrong JSON type.
public enum OpDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `kind` names no op.
    case unknownKind(String)
    /// `field` has the right JSON type but a value its type cannot hold (`reason` says which).
    case invalidValue(kind: String, field: String, reason: String)

    /// A sentence for the error message.
    public var description: String {
        switch self {
        case .unknownKind(let kind): "unknown op kind \(JSONEscaping.literal(kind))"
        case .invalidValue(let kind, let field, let reason): "\(kind): field `\(field)`: \(reason)"
        }
    }
}

extension DecodingError.Context {
    /// The reason for a person, without the value read: Swift's own text for a value an enum does not take is
    /// "Cannot initialize Role from invalid String value admin", which names a Swift type and echoes the input
    /// (Protocol.md: an error message never echoes raw input).
    public var readableReason: String {
        debugDescription.hasPrefix("Cannot initialize ") ? "not one of the values this field takes" : debugDescription
    }
}
