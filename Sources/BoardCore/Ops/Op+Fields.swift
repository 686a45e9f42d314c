// Every op's wire shape, declared once: which fields each kind has, their JSON types, which are optional, and the
// order they are written in. Codable (`Op+Codable.swift`), the server's tape reader (`TapeReader+Op.swift`) and its
// byte writer (`LineWriter+Delta.swift`) all go through these two functions, so a new op kind is written here and
// nowhere else; both switches are exhaustive, so the compiler stops here until it is.
//
// `@inlinable` so that each format gets a copy specialized for its reader or writer (no witness-table call per
// field on the server's hot paths).

extension Op {
    /// The op of `kind` whose fields `r` reads. Unknown fields are ignored.
    @inlinable
    public init<R: OpFieldReader>(kind: Kind, reading r: R) throws(R.Failure) {
        func placement() throws(R.Failure) -> Placement {
            Placement(
                after: try r.optionalText(.after), before: try r.optionalText(.before), index: try r.optionalInt(.index),
                rank: try r.optionalText(.rank))
        }
        switch kind {
        case .boardRename: self = .renameBoard(name: try r.text(.name))
        case .boardRemind: self = .setRemindHours(hours: try r.optionalInt(.hours))
        case .memberSet:
            self = .setMember(user: try r.text(.user), role: try r.text(.role), name: try r.optionalText(.name))
        case .memberRemove: self = .removeMember(user: try r.text(.user))
        case .columnAdd:
            self = .addColumn(column: try r.text(.column), name: try r.text(.name), index: try r.optionalInt(.index))
        case .columnRename: self = .renameColumn(column: try r.text(.column), name: try r.text(.name))
        case .columnMove: self = .moveColumn(column: try r.text(.column), index: try r.int(.index))
        case .columnRemove: self = .removeColumn(column: try r.text(.column))
        case .columnWIP:
            let column: ColumnID = try r.text(.column)
            // `hard` is read only with a limit: a null limit removes it, whatever `hard` says.
            if let limit = try r.optionalInt(.limit) {
                self = .setWIPLimit(column: column, limit: WIPLimit(limit: limit, hard: try r.optionalBool(.hard) ?? false))
            } else {
                self = .setWIPLimit(column: column, limit: nil)
            }
        case .columnInProgress: self = .setInProgress(column: try r.text(.column), on: try r.bool(.inProgress))
        case .cardAdd:
            self = .addCard(
                AddCard(
                    card: try r.text(.card), column: try r.optionalText(.column), placement: try placement(),
                    title: try r.text(.title), description: try r.optionalText(.description) ?? "",
                    due: try r.optionalText(.due), labels: try r.texts(.labels), assignees: try r.texts(.assignees),
                    milestone: try r.optionalText(.milestone), ref: try r.optionalText(.ref),
                    createdAt: try r.optionalTimestamp(.createdAt)))
        case .cardEdit:
            self = .editCard(
                EditCard(
                    card: try r.text(.card), title: try r.optionalText(.title),
                    description: try r.optionalText(.description), baseSeq: try r.optionalSeq(.baseSeq),
                    due: try r.clearable(.due), milestone: try r.clearable(.milestone), ref: try r.clearable(.ref),
                    baseTitle: try r.optionalText(.baseTitle)))
        case .cardMove:
            self = .moveCard(
                card: try r.text(.card), column: try r.text(.toColumn), placement: try placement(),
                force: try r.optionalText(.force))
        case .cardLabel: self = .addLabel(card: try r.text(.card), label: try r.text(.label))
        case .cardUnlabel: self = .removeLabel(card: try r.text(.card), label: try r.text(.label))
        case .cardAssign: self = .assign(card: try r.text(.card), user: try r.text(.user))
        case .cardUnassign: self = .unassign(card: try r.text(.card), user: try r.text(.user))
        case .cardBlock: self = .blockCard(card: try r.text(.card), by: try r.text(.by))
        case .cardUnblock: self = .unblockCard(card: try r.text(.card), by: try r.text(.by))
        case .cardRecur: self = .setRecurrence(card: try r.text(.card), recurrence: try r.recurrence(.recur))
        case .cardWatch: self = .watchCard(card: try r.text(.card))
        case .cardUnwatch: self = .unwatchCard(card: try r.text(.card))
        case .cardClose: self = .closeCard(card: try r.text(.card))
        case .cardReopen: self = .reopenCard(card: try r.text(.card))
        case .cardArchive: self = .archiveCard(card: try r.text(.card))
        case .cardRestore: self = .restoreCard(card: try r.text(.card))
        case .cardPurge: self = .purgeCard(card: try r.text(.card))
        case .checklistAdd:
            self = .addChecklistItem(
                card: try r.text(.card), item: try r.text(.item), text: try r.text(.text),
                done: try r.optionalBool(.done) ?? false, index: try r.optionalInt(.index))
        case .checklistEdit:
            self = .editChecklistItem(
                card: try r.text(.card), item: try r.text(.item), text: try r.optionalText(.text),
                done: try r.optionalBool(.done))
        case .checklistRemove: self = .removeChecklistItem(card: try r.text(.card), item: try r.text(.item))
        case .commentAdd:
            self = .addComment(card: try r.text(.card), comment: try r.text(.comment), text: try r.text(.text))
        case .commentEdit:
            self = .editComment(card: try r.text(.card), comment: try r.text(.comment), text: try r.text(.text))
        case .commentDelete: self = .deleteComment(card: try r.text(.card), comment: try r.text(.comment))
        case .labelCreate:
            self = .createLabel(label: try r.text(.label), name: try r.text(.name), color: try r.text(.color))
        case .labelUpdate:
            self = .updateLabel(
                label: try r.text(.label), name: try r.optionalText(.name), color: try r.optionalText(.color))
        case .labelDelete: self = .deleteLabel(label: try r.text(.label))
        case .milestoneCreate:
            self = .createMilestone(
                milestone: try r.text(.milestone), title: try r.text(.title),
                description: try r.optionalText(.description), due: try r.optionalText(.due))
        case .milestoneUpdate:
            self = .updateMilestone(
                milestone: try r.text(.milestone), title: try r.optionalText(.title),
                description: try r.optionalText(.description), due: try r.clearable(.due))
        case .milestoneClose: self = .closeMilestone(milestone: try r.text(.milestone))
        case .milestoneReopen: self = .reopenMilestone(milestone: try r.text(.milestone))
        case .milestoneDelete: self = .deleteMilestone(milestone: try r.text(.milestone))
        case .chat: self = .chat(text: try r.text(.text))
        }
    }

    /// Writes the op's fields but `kind`, in the order the wire has them; nil fields, an empty description and
    /// empty label and assignee lists are left out.
    @inlinable
    public func writeFields<W: OpFieldWriter>(to w: inout W) throws(W.Failure) {
        func placement(_ p: Placement) throws(W.Failure) {
            try w.text(.after, p.after)
            try w.text(.before, p.before)
            try w.int(.index, p.index)
            try w.text(.rank, p.rank)
        }
        switch self {
        case .renameBoard(let name): try w.text(.name, name)
        case .setRemindHours(let hours):
            if let hours { try w.int(.hours, hours) } else { try w.null(.hours) }
        case .setMember(let user, let role, let name):
            try w.text(.user, user)
            try w.text(.role, role)
            try w.text(.name, name)
        case .removeMember(let user): try w.text(.user, user)
        case .addColumn(let column, let name, let index):
            try w.text(.column, column)
            try w.text(.name, name)
            try w.int(.index, index)
        case .renameColumn(let column, let name):
            try w.text(.column, column)
            try w.text(.name, name)
        case .moveColumn(let column, let index):
            try w.text(.column, column)
            try w.int(.index, index)
        case .removeColumn(let column): try w.text(.column, column)
        case .setWIPLimit(let column, let limit):
            try w.text(.column, column)
            if let limit {
                try w.int(.limit, limit.limit)
                try w.bool(.hard, limit.hard)
            } else {
                try w.null(.limit)
            }
        case .setInProgress(let column, let on):
            try w.text(.column, column)
            try w.bool(.inProgress, on)
        case .addCard(let a):
            try w.text(.card, a.card)
            try w.text(.column, a.column)
            try placement(a.placement)
            try w.text(.title, a.title)
            if !a.description.isEmpty { try w.text(.description, a.description) }
            try w.text(.due, a.due)
            if !a.labels.isEmpty { try w.texts(.labels, a.labels) }
            if !a.assignees.isEmpty { try w.texts(.assignees, a.assignees) }
            try w.text(.milestone, a.milestone)
            try w.text(.ref, a.ref)
            if let createdAt = a.createdAt { try w.timestamp(.createdAt, createdAt) }
        case .editCard(let e):
            try w.text(.card, e.card)
            try w.text(.title, e.title)
            try w.text(.description, e.description)
            if let baseSeq = e.baseSeq { try w.seq(.baseSeq, baseSeq) }
            try w.clearable(.due, e.due)
            try w.clearable(.milestone, e.milestone)
            try w.clearable(.ref, e.ref)
            try w.text(.baseTitle, e.baseTitle)
        case .moveCard(let card, let column, let p, let force):
            try w.text(.card, card)
            try w.text(.toColumn, column)
            try placement(p)
            try w.text(.force, force)
        case .addLabel(let card, let label), .removeLabel(let card, let label):
            try w.text(.card, card)
            try w.text(.label, label)
        case .assign(let card, let user), .unassign(let card, let user):
            try w.text(.card, card)
            try w.text(.user, user)
        case .blockCard(let card, let by), .unblockCard(let card, let by):
            try w.text(.card, card)
            try w.text(.by, by)
        case .setRecurrence(let card, let recurrence):
            try w.text(.card, card)
            if let recurrence { try w.recurrence(.recur, recurrence) } else { try w.null(.recur) }
        case .closeCard(let card), .reopenCard(let card), .archiveCard(let card), .restoreCard(let card),
            .purgeCard(let card), .watchCard(let card), .unwatchCard(let card):
            try w.text(.card, card)
        case .addChecklistItem(let card, let item, let text, let done, let index):
            try w.text(.card, card)
            try w.text(.item, item)
            try w.text(.text, text)
            if done { try w.bool(.done, done) }
            try w.int(.index, index)
        case .editChecklistItem(let card, let item, let text, let done):
            try w.text(.card, card)
            try w.text(.item, item)
            try w.text(.text, text)
            try w.bool(.done, done)
        case .removeChecklistItem(let card, let item):
            try w.text(.card, card)
            try w.text(.item, item)
        case .addComment(let card, let comment, let text), .editComment(let card, let comment, let text):
            try w.text(.card, card)
            try w.text(.comment, comment)
            try w.text(.text, text)
        case .deleteComment(let card, let comment):
            try w.text(.card, card)
            try w.text(.comment, comment)
        case .createLabel(let label, let name, let color):
            try w.text(.label, label)
            try w.text(.name, name)
            try w.text(.color, color)
        case .updateLabel(let label, let name, let color):
            try w.text(.label, label)
            try w.text(.name, name)
            try w.text(.color, color)
        case .deleteLabel(let label): try w.text(.label, label)
        case .createMilestone(let milestone, let title, let description, let due):
            try w.text(.milestone, milestone)
            try w.text(.title, title)
            try w.text(.description, description)
            try w.text(.due, due)
        case .updateMilestone(let milestone, let title, let description, let due):
            try w.text(.milestone, milestone)
            try w.text(.title, title)
            try w.text(.description, description)
            try w.clearable(.due, due)
        case .closeMilestone(let m), .reopenMilestone(let m), .deleteMilestone(let m):
            try w.text(.milestone, m)
        case .chat(let text): try w.text(.text, text)
        }
    }
}
