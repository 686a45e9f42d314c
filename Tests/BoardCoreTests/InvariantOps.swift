import PropertyBased
import Testing

@testable import BoardCore

/// A random step for the invariant properties: which op (or an undo) to try, three numbers that pick its ids and
/// fields from small pools, and who tries it. Small pools make the ops collide: the same card is moved, edited and
/// archived, a label is deleted while cards carry it, ids are reused after a purge.
struct OpTemplate: Sendable, Hashable, CustomStringConvertible {
    var kind: Int
    var a: Int
    var b: Int
    var c: Int
    var who: Int

    static let kindCount = 43

    static let cards: [CardID] = ["c1", "c2", "c3", "c4", "c5", "c6", "n1", "n2", "n3", "n4", "n5"]
    static let columns: [ColumnID] = ["todo", "doing", "done", "qa", "zz"]
    static let labels: [LabelID] = ["bug", "ui", "docs", "l1", "l2"]
    static let milestones: [MilestoneID] = ["m1", "m2", "m3"]
    static let users: [UserID] = ["alice", "bob", "vera", "ci", "dan"]
    static let items: [ChecklistItemID] = ["i1", "i2", "i3"]
    static let comments: [CommentID] = ["k1", "k2", "k3"]
    static let ranks = ["1", "F", "V", "V1", "a", "k", "z"]

    static func pick<T>(_ pool: [T], _ n: Int) -> T { pool[n % pool.count] }

    /// Who acts: mostly alice (owner), then bob (editor), ci (bot) and vera (viewer).
    var actor: UserID {
        switch who % 10 {
        case 0...4: "alice"
        case 5...7: "bob"
        case 8: "ci"
        default: "vera"
        }
    }

    /// Whether this step undoes an earlier change rather than making an op.
    var isUndo: Bool { kind >= 41 }

    var card: CardID { Self.pick(Self.cards, a) }

    func placement(_ n: Int) -> Placement {
        switch n % 7 {
        case 0: .bottom
        case 1: .top
        case 2: Placement(after: Self.pick(Self.cards, n / 7))
        case 3: Placement(before: Self.pick(Self.cards, n / 7))
        case 4: Placement(index: (n / 7) % 5)
        case 5: Placement(after: Self.pick(Self.cards, n / 7), before: Self.pick(Self.cards, n / 11))
        default: Placement(rank: Rank(Self.pick(Self.ranks, n / 7))!)
        }
    }

    var day: Day { Day(year: 2026, month: 1 + a % 12, day: 1 + b % 28)! }

    /// The op this template stands for (undo templates have none).
    var op: Op? {
        let label = Self.pick(Self.labels, b)
        let milestone = Self.pick(Self.milestones, b)
        let column = Self.pick(Self.columns, b)
        let user = Self.pick(Self.users, b)
        let item = Self.pick(Self.items, b)
        let comment = Self.pick(Self.comments, b)
        switch kind {
        case 0...4:
            return .addCard(
                AddCard(
                    card: card, column: b % 6 == 5 ? nil : column, placement: placement(c), title: "T\(c)",
                    description: c % 2 == 0 ? "" : "D\(c)", due: c % 7 == 0 ? day : nil,
                    labels: c % 4 == 0 ? [label] : [], assignees: c % 5 == 0 ? [user] : [],
                    milestone: c % 6 == 0 ? milestone : nil, ref: c % 3 == 0 ? "R\(a % 4)" : nil))
        case 5...10:
            return .moveCard(card: card, column: column, placement: placement(c), force: c % 4 == 0 ? "R\(b % 3)" : nil)
        case 11, 12:
            return .editCard(
                EditCard(
                    card: card, title: b % 2 == 0 ? "E\(c % 9)" : nil, description: c % 3 == 0 ? "D\(b % 5)" : nil,
                    baseSeq: c % 4 == 0 ? UInt64(c % 25) : nil,
                    due: b % 5 == 0 ? .set(day) : b % 5 == 1 ? .clear : nil,
                    milestone: c % 4 == 1 ? .set(milestone) : c % 4 == 2 ? .clear : nil,
                    ref: c % 5 == 0 ? .set("R\(b % 4)") : c % 5 == 1 ? .clear : nil))
        case 13: return .addLabel(card: card, label: label)
        case 14: return .removeLabel(card: card, label: label)
        case 15: return c % 3 == 0 ? .blockCard(card: card, by: Self.pick(Self.cards, b)) : .assign(card: card, user: user)
        case 16: return c % 3 == 0 ? .unblockCard(card: card, by: Self.pick(Self.cards, b)) : .unassign(card: card, user: user)
        case 17:
            if c % 5 == 0 { return .setRecurrence(card: card, recurrence: b % 2 == 0 ? Recurrence(every: .weekday) : nil) }
            return .closeCard(card: card)
        case 18:
            if c % 5 == 0 { return b % 2 == 0 ? .watchCard(card: card) : .unwatchCard(card: card) }
            return .reopenCard(card: card)
        case 19: return .archiveCard(card: card)
        case 20: return .restoreCard(card: card)
        case 21: return c % 3 == 0 ? .purgeCard(card: card) : .archiveCard(card: card)
        case 22:
            return .addChecklistItem(card: card, item: item, text: "S\(c)", done: c % 2 == 0, index: c % 3 == 0 ? c % 4 : nil)
        case 23:
            return .editChecklistItem(
                card: card, item: item, text: c % 2 == 0 ? "S\(c % 5)" : nil, done: c % 3 == 0 ? nil : c % 3 == 1)
        case 24: return .removeChecklistItem(card: card, item: item)
        case 25: return .addComment(card: card, comment: comment, text: "Note \(c)")
        case 26: return .editComment(card: card, comment: comment, text: "Note \(c % 3)")
        case 27: return .deleteComment(card: card, comment: comment)
        case 28:
            return .createLabel(
                label: label, name: "L\(c % 6)", color: HexColor(red: UInt8(c % 256), green: UInt8(b % 256), blue: 7))
        case 29: return .deleteLabel(label: label)
        case 30:
            return .updateLabel(
                label: label, name: c % 2 == 0 ? "L\(c % 6)" : nil,
                color: c % 3 == 0 ? HexColor(red: 1, green: UInt8(c % 256), blue: 3) : nil)
        case 31: return .createMilestone(milestone: milestone, title: "M\(c % 4)", description: nil, due: c % 2 == 0 ? day : nil)
        case 32:
            return .updateMilestone(
                milestone: milestone, title: c % 2 == 0 ? "M\(c % 4)" : nil, description: c % 3 == 0 ? "x\(c % 2)" : nil,
                due: c % 5 == 0 ? .clear : c % 5 == 1 ? .set(day) : nil)
        case 33: return c % 2 == 0 ? .closeMilestone(milestone: milestone) : .reopenMilestone(milestone: milestone)
        case 34: return .deleteMilestone(milestone: milestone)
        case 35: return .addColumn(column: column, name: "Col \(c % 6)", index: c % 3 == 0 ? c % 5 : nil)
        case 36: return .removeColumn(column: column)
        case 37:
            if c % 5 == 4 { return .setInProgress(column: column, on: b % 2 == 0) }
            return .setWIPLimit(column: column, limit: c % 3 == 0 ? nil : WIPLimit(limit: 1 + c % 4, hard: c % 2 == 0))
        case 38:
            return c % 2 == 0
                ? .moveColumn(column: column, index: c % 5) : .renameColumn(column: column, name: "Col \(c % 6)")
        case 39:
            if c % 4 == 0 { return .renameBoard(name: "Board \(c % 3)") }
            if c % 4 == 1 { return .setRemindHours(hours: c % 3 == 0 ? nil : c % 721) }
            return .chat(text: "chat \(c)")
        case 40:
            return c % 3 == 0
                ? .removeMember(user: user)
                : .setMember(user: user, role: Role.allCases[c % 4], name: c % 2 == 0 ? "N\(c % 3)" : nil)
        default: return nil
        }
    }

    var description: String { op.map { "\($0) by \(actor)" } ?? "undo #\(a) by \(actor)" }

    /// A single template.
    static let generator = zip(
        Gen.int(in: 0...(kindCount - 1)), Gen.int(in: 0...999), Gen.int(in: 0...999), Gen.int(in: 0...999),
        Gen.int(in: 0...9)
    ).map { OpTemplate(kind: $0, a: $1, b: $2, c: $3, who: $4) }

    /// A sequence of 1–40 templates.
    static let sequence = generator.array(of: 1...40)
}

/// One accepted step of a run: an op, or an undo of an earlier change, with its context.
enum AcceptedStep {
    case op(Op, ApplyContext)
    case undo(Activity, Op?, ApplyContext)
}

/// The result of running templates against a board.
struct TemplateRun {
    var board: Board
    var accepted: [AcceptedStep] = []
    /// Accepted, non-noop changes in order (for undo templates to pick from).
    var history: [Change] = []
}

/// Applies each template to `board` in turn, through both reducer entry points, checking the step rules and the board
/// invariants after every step. Rejections and no-ops are kept out of `accepted`.
func runTemplates(_ templates: [OpTemplate], on board: Board, sourceLocation: SourceLocation = #_sourceLocation) -> TemplateRun {
    var state = TemplateRun(board: board)
    for template in templates {
        let before = state.board
        let context = ctx(template.actor, on: before)
        let viaCopy: Result<Change, Rejection>
        var mutated = before
        let viaMutation: Result<(activity: Activity, inverse: Op?, isNoop: Bool), Rejection>
        let step: (Change) -> AcceptedStep
        if let op = template.op {
            viaCopy = before.applying(op, context: context)
            viaMutation = mutated.apply(op, context: context)
            step = { _ in .op(op, context) }
        } else {
            guard !state.history.isEmpty else { continue }
            let target = state.history[template.a % state.history.count]
            viaCopy = before.applyingUndo(of: target.activity, inverse: target.inverse, context: context)
            viaMutation = mutated.applyUndo(of: target.activity, inverse: target.inverse, context: context)
            step = { _ in .undo(target.activity, target.inverse, context) }
        }
        switch (viaCopy, viaMutation) {
        case (.failure(let r1), .failure(let r2)):
            #expect(r1 == r2, "\(template)", sourceLocation: sourceLocation)
            let untouched = mutated == before
            #expect(untouched, "rejected \(template) changed the board", sourceLocation: sourceLocation)
        case (.success(let change), .success(let result)):
            let agree = change.board == mutated
            #expect(agree, "both entry points agree on \(template)", sourceLocation: sourceLocation)
            #expect(change.activity == result.activity, sourceLocation: sourceLocation)
            #expect(change.isNoop == result.isNoop, sourceLocation: sourceLocation)
            #expect(change.activity.seq == context.seq, sourceLocation: sourceLocation)
            #expect(change.activity.actor == template.actor, sourceLocation: sourceLocation)
            if change.isNoop {
                let untouched = change.board == before
                #expect(untouched, "noop \(template) changed the board", sourceLocation: sourceLocation)
                #expect(change.inverse == nil, sourceLocation: sourceLocation)
            } else {
                #expect(change.board.seq == before.seq + 1, "\(template)", sourceLocation: sourceLocation)
                // The content hash moves with every effective change and only then: chat changes no content.
                let hashChanged = change.board.contentHash != before.contentHash
                #expect(hashChanged == (change.activity.kind != "chat"),
                        "content hash after \(template)", sourceLocation: sourceLocation)
                expectHardLimitsHeld(before, change.board, template, sourceLocation: sourceLocation)
                state.accepted.append(step(change))
                state.history.append(change)
                state.board = change.board
            }
        default:
            Issue.record("the entry points disagree on \(template): \(viaCopy) vs \(viaMutation)",
                         sourceLocation: sourceLocation)
        }
        let violations = invariantViolations(state.board)
        #expect(violations.isEmpty, "after \(template): \(violations)", sourceLocation: sourceLocation)
        if !violations.isEmpty { break }
    }
    return state
}

/// No accepted change pushes a column past its hard WIP limit (a column already past it, because the limit was
/// lowered, may not grow).
func expectHardLimitsHeld(
    _ before: Board, _ after: Board, _ template: OpTemplate, sourceLocation: SourceLocation = #_sourceLocation
) {
    for column in after.columns {
        guard let wip = column.wip, wip.hard, before.column(column.id)?.wip == wip else { continue }
        let was = before.count(in: column.id)
        let now = after.count(in: column.id)
        #expect(now <= max(wip.limit, was), "\(template) overfilled \(column.id)", sourceLocation: sourceLocation)
    }
}

/// Everything that must hold of any board the reducer produces; empty when all is well.
func invariantViolations(_ board: Board) -> [String] {
    var problems: [String] = []
    func check(_ ok: Bool, _ message: @autoclosure () -> String) { if !ok { problems.append(message()) } }

    let columnIDs = board.columns.map(\.id)
    check(!board.columns.isEmpty && board.columns.count <= Limits.columnsMax, "column count \(board.columns.count)")
    check(Set(columnIDs).count == columnIDs.count, "duplicate column ids \(columnIDs)")
    let columnNames = board.columns.map { $0.name.lowercased() }
    check(Set(columnNames).count == columnNames.count, "duplicate column names \(columnNames)")
    for column in board.columns {
        let all = board.cards(in: column.id, includeArchived: true)
        let ranks = all.map(\.rank)
        check(Set(ranks).count == ranks.count, "ranks not unique in \(column.id): \(ranks)")
        for rank in ranks { check(Rank(rank.rawValue) == rank, "invalid rank \(rank)") }
        let unarchived = board.cards.values.filter { $0.column == column.id && !$0.archived }.count
        check(board.count(in: column.id) == unarchived, "count(in: \(column.id)) is off")
        check(board.cards(in: column.id).count == unarchived, "cards(in: \(column.id)) is off")
        if let wip = column.wip { check((1...Limits.wipLimitMax).contains(wip.limit), "bad WIP limit \(wip)") }
    }

    let labelIDs = Set(board.labels.map(\.id))
    check(labelIDs.count == board.labels.count, "duplicate label ids")
    let labelNames = board.labels.map { $0.name.lowercased() }
    check(Set(labelNames).count == labelNames.count, "duplicate label names \(labelNames)")
    let milestoneIDs = Set(board.milestones.map(\.id))
    check(milestoneIDs.count == board.milestones.count, "duplicate milestone ids")
    check(board.members.values.contains { $0.role == .owner }, "no owner")
    for (id, member) in board.members { check(id == member.id, "member keyed \(id) is \(member.id)") }

    var numbers: Set<Int> = []
    var refs: Set<String> = []
    for (id, card) in board.cards {
        check(id == card.id, "card keyed \(id) is \(card.id)")
        check(!board.purged.contains(id), "\(id) is both present and purged")
        check(columnIDs.contains(card.column), "\(id) sits in missing column \(card.column)")
        check(card.number >= 1 && card.number < board.nextCardNumber, "\(id) has number \(card.number)")
        check(numbers.insert(card.number).inserted, "card number \(card.number) is used twice")
        if let ref = card.ref { check(refs.insert(ref).inserted, "ref \(ref) is used twice") }
        check(card.labels.allSatisfy(labelIDs.contains), "\(id) carries a missing label: \(card.labels)")
        check(card.labels == Array(Set(card.labels)).sorted(), "\(id) labels not sorted and unique: \(card.labels)")
        check(card.labels.count <= Limits.labelsPerCardMax, "\(id) has too many labels")
        check(card.assignees.allSatisfy { board.members[$0] != nil }, "\(id) is assigned to a non-member: \(card.assignees)")
        check(card.assignees == Array(Set(card.assignees)).sorted(), "\(id) assignees not sorted and unique")
        if let m = card.milestone { check(milestoneIDs.contains(m), "\(id) is in missing milestone \(m)") }
        check(Set(card.checklist.map(\.id)).count == card.checklist.count, "\(id) has duplicate checklist ids")
        check(Set(card.comments.map(\.id)).count == card.comments.count, "\(id) has duplicate comment ids")
        check(card.descriptionSeq <= board.seq, "\(id) description seq \(card.descriptionSeq) > \(board.seq)")
    }
    return problems
}

/// Replays accepted steps on `board`; nil (with an issue) when a step that was accepted before is now refused.
func replaySteps(_ steps: [AcceptedStep], on board: Board) -> Board? {
    var board = board
    for step in steps {
        let result: Result<(activity: Activity, inverse: Op?, isNoop: Bool), Rejection> =
            switch step {
            case .op(let op, let context): board.apply(op, context: context)
            case .undo(let activity, let inverse, let context): board.applyUndo(of: activity, inverse: inverse, context: context)
            }
        if case .failure(let r) = result {
            Issue.record("replay refused a step it accepted before: \(r)")
            return nil
        }
    }
    return board
}
