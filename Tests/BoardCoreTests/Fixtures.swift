import Testing

@testable import BoardCore

/// The fixture board and the helpers the reducer, undo and invariant tests share.
///
/// Board `main` at seq 10, columns TODO, DOING, DONE; members alice (owner), bob (editor), vera (viewer), ci (bot).
///
/// | column | cards in rank order                                                                 |
/// |--------|-------------------------------------------------------------------------------------|
/// | todo   | c1 `F` (#1, bug, alice, m1, JIRA-1) · c2 `V` (#2, bob) · c6 `a` (#6, archived) · c3 `k` (#3) |
/// | doing  | c4 `V` (#4, m1)                                                                      |
/// | done   | c5 `V` (#5, m1, closed)                                                             |
///
/// c3 has checklist items i1 "Draft" (open) and i2 "Review" (done) and comment k1 by bob.
enum Fixtures {
    /// 2026-01-01T00:00:00Z.
    static let t0: Int64 = 1_767_225_600_000
    /// The seq of the fixture board.
    static let seq: UInt64 = 10
    /// The milestone's due date.
    static let m1Due = Day(year: 2026, month: 6, day: 1)!

    static let bug = Label(id: "bug", name: "Bug", color: HexColor(red: 0xd7, green: 0x3a, blue: 0x4a))
    static let ui = Label(id: "ui", name: "UI", color: HexColor(red: 0x00, green: 0x75, blue: 0xca))
    static let docs = Label(id: "docs", name: "Docs", color: HexColor(red: 0xff, green: 0xff, blue: 0xff))

    /// The fixture board (see the type's documentation).
    static let board: Board = {
        var board = Board(id: "main", name: "Main", owner: "alice")
        board.members["bob"] = Member(id: "bob", role: .editor, name: "Bob B.")
        board.members["vera"] = Member(id: "vera", role: .viewer)
        board.members["ci"] = Member(id: "ci", role: .bot)
        board.labels = [bug, ui, docs]
        board.milestones = [Milestone(id: "m1", title: "v1.0", description: "First release", due: m1Due)]
        let at = Timestamp(milliseconds: t0 - 86_400_000)
        let cards = [
            Card(
                id: "c1", number: 1, column: "todo", rank: Rank("F")!, title: "Fix login", descriptionSeq: 1,
                labels: ["bug"], assignees: ["alice"], milestone: "m1", ref: "JIRA-1", createdBy: "alice",
                createdAt: at),
            Card(id: "c2", number: 2, column: "todo", rank: Rank("V")!, title: "Design settings", descriptionSeq: 2,
                 assignees: ["bob"], createdBy: "bob", createdAt: at),
            Card(
                id: "c3", number: 3, column: "todo", rank: Rank("k")!, title: "Write docs", description: "Outline",
                descriptionSeq: 3,
                checklist: [ChecklistItem(id: "i1", text: "Draft"), ChecklistItem(id: "i2", text: "Review", done: true)],
                comments: [Comment(id: "k1", author: "bob", at: at, text: "Looks good")], createdBy: "alice",
                createdAt: at),
            Card(id: "c4", number: 4, column: "doing", rank: Rank("V")!, title: "Release notes", descriptionSeq: 4,
                 milestone: "m1", createdBy: "alice", createdAt: at),
            Card(id: "c5", number: 5, column: "done", rank: Rank("V")!, title: "Old crash", descriptionSeq: 5,
                 milestone: "m1", closed: true, createdBy: "alice", createdAt: at),
            Card(id: "c6", number: 6, column: "todo", rank: Rank("a")!, title: "Archived idea", descriptionSeq: 6,
                 archived: true, createdBy: "alice", createdAt: at),
        ]
        for card in cards { board.cards[card.id] = card }
        board.nextCardNumber = 7
        board.seq = seq
        return board
    }()

    /// One op of every kind (in `Op.allKinds` order), with its optional fields set where it has any.
    static let sampleOps: [Op] = {
        let day = Day(year: 2026, month: 2, day: 14)!
        let color = HexColor(red: 0x12, green: 0xab, blue: 0xef)
        return [
            .renameBoard(name: "Roadmap"),
            .setRemindHours(hours: 48),
            .setMember(user: "dan", role: .editor, name: "Dan"),
            .removeMember(user: "vera"),
            .addColumn(column: "qa", name: "QA", index: 1),
            .renameColumn(column: "doing", name: "In progress"),
            .moveColumn(column: "done", index: 0),
            .removeColumn(column: "qa"),
            .setWIPLimit(column: "doing", limit: WIPLimit(limit: 3, hard: true)),
            .setInProgress(column: "todo", on: true),
            .addCard(
                AddCard(
                    card: "n1", column: "doing", placement: Placement(after: "c4"), title: "New", description: "D",
                    due: day, labels: ["bug", "ui"], assignees: ["bob"], milestone: "m1", ref: "GH-1",
                    createdAt: Timestamp(milliseconds: 1_704_067_200_000))),
            .editCard(
                EditCard(
                    card: "c1", title: "T", description: "D", baseSeq: 3, due: .set(day), milestone: .clear,
                    ref: .set("R-1"))),
            .moveCard(
                card: "c2", column: "doing", placement: Placement(after: "c4", before: "c5", index: 1, rank: Rank("V")!),
                force: "the release needs it"),
            .addLabel(card: "c2", label: "ui"),
            .removeLabel(card: "c1", label: "bug"),
            .assign(card: "c1", user: "bob"),
            .unassign(card: "c1", user: "alice"),
            .blockCard(card: "c2", by: "c1"),
            .unblockCard(card: "c2", by: "c3"),
            .setRecurrence(card: "c3", recurrence: Recurrence(every: .week, days: ["mon", "thu"])),
            .watchCard(card: "c2"),
            .unwatchCard(card: "c2"),
            .closeCard(card: "c1"),
            .reopenCard(card: "c5"),
            .archiveCard(card: "c1"),
            .restoreCard(card: "c6"),
            .purgeCard(card: "c2"),
            .addChecklistItem(card: "c3", item: "i3", text: "Publish", done: true, index: 0),
            .editChecklistItem(card: "c3", item: "i1", text: "Draft it", done: true),
            .removeChecklistItem(card: "c3", item: "i2"),
            .addComment(card: "c3", comment: "k2", text: "Hi\nthere"),
            .editComment(card: "c3", comment: "k1", text: "Edited"),
            .deleteComment(card: "c3", comment: "k1"),
            .createLabel(label: "perf", name: "Perf", color: color),
            .updateLabel(label: "bug", name: "Defect", color: color),
            .deleteLabel(label: "docs"),
            .createMilestone(milestone: "m2", title: "v2.0", description: "Next", due: day),
            .updateMilestone(milestone: "m1", title: "v1.0 GA", description: "Scope", due: .clear),
            .closeMilestone(milestone: "m1"),
            .reopenMilestone(milestone: "m1"),
            .deleteMilestone(milestone: "m1"),
            .chat(text: "hello"),
        ]
    }()

    /// A copy of the fixture board with extra labels `x1`…`xN` (so a card can be given many labels).
    static func board(extraLabels n: Int) -> Board {
        var board = board
        for i in 1...n {
            board.labels.append(Label(id: LabelID("x\(i)"), name: "Extra \(i)", color: HexColor(red: 1, green: 2, blue: 3)))
        }
        return board
    }

    /// A plain card for hand-built boards.
    static func card(_ id: CardID, number: Int, column: ColumnID, rank: String, archived: Bool = false) -> Card {
        Card(
            id: id, number: number, column: column, rank: Rank(rank)!, title: "Card \(id)", archived: archived,
            createdBy: "alice", createdAt: Timestamp(milliseconds: t0))
    }
}

/// A reducer context; `now` defaults to `Fixtures.t0` plus `seq` seconds, so every change has its own instant.
func ctx(_ actor: UserID = "alice", role: Role = .owner, seq: UInt64, now: Int64? = nil) -> ApplyContext {
    ApplyContext(
        actor: actor, role: role, now: Timestamp(milliseconds: now ?? Fixtures.t0 + Int64(seq) * 1000), seq: seq)
}

/// The context for `actor` acting on `board` next: their role on the board (viewer when not a member), seq + 1.
func ctx(_ actor: UserID, on board: Board) -> ApplyContext {
    ctx(actor, role: board.members[actor]?.role ?? .viewer, seq: board.seq + 1)
}

/// Applies `op` as `actor` with seq = board.seq + 1 and stores the new board; records an issue when it is rejected.
@discardableResult
func mustApply(
    _ op: Op, to board: inout Board, as actor: UserID = "alice", sourceLocation: SourceLocation = #_sourceLocation
) -> Change? {
    switch board.applying(op, context: ctx(actor, on: board)) {
    case .success(let change):
        board = change.board
        return change
    case .failure(let rejection):
        Issue.record("\(op.kind) by \(actor) was rejected: \(rejection)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Applies `op` as `actor` and returns the change (its activity without `names`); records an issue when it is
/// rejected.
func accepted(
    _ op: Op, on board: Board, as actor: UserID = "alice", sourceLocation: SourceLocation = #_sourceLocation
) throws -> Change {
    var copy = board
    let change = mustApply(op, to: &copy, as: actor, sourceLocation: sourceLocation)
    var accepted = try #require(change, sourceLocation: sourceLocation)
    // The names a record carries are checked in ActivityNamesTests; the reducer tests compare the rest.
    accepted.activity.names = nil
    return accepted
}

/// The rejection `op` gets from `board` as `actor`, or nil (with an issue recorded) when it is accepted.
///
/// Checks both reducer entry points: `applying` must leave `board` alone, and the mutating `apply` must leave its board
/// exactly as it was (it validates before it writes) and refuse with the same rejection.
func rejection(
    of op: Op, on board: Board, as actor: UserID = "alice", sourceLocation: SourceLocation = #_sourceLocation
) -> Rejection? {
    let context = ctx(actor, on: board)
    let viaCopy: Rejection?
    switch apply(op, to: board, context: context) {
    case .success(let change):
        Issue.record("\(op.kind) by \(actor) was accepted (noop: \(change.isNoop))", sourceLocation: sourceLocation)
        viaCopy = nil
    case .failure(let r):
        viaCopy = r
    }
    var mutated = board
    switch mutated.apply(op, context: context) {
    case .success:
        if viaCopy != nil { Issue.record("the mutating apply accepted \(op.kind)", sourceLocation: sourceLocation) }
    case .failure(let r):
        #expect(r == viaCopy, "both entry points refuse the same way", sourceLocation: sourceLocation)
        let untouched = mutated == board
        #expect(untouched, "a rejected \(op.kind) must leave the board exactly as it was", sourceLocation: sourceLocation)
    }
    return viaCopy
}

/// The code of `rejection(of:on:as:)`.
func rejectionCode(
    of op: Op, on board: Board, as actor: UserID = "alice", sourceLocation: SourceLocation = #_sourceLocation
) -> Rejection.Code? {
    rejection(of: op, on: board, as: actor, sourceLocation: sourceLocation)?.code
}

/// The instant `ctx(seq:)` uses for `seq`.
func stamp(_ seq: UInt64) -> Timestamp { Timestamp(milliseconds: Fixtures.t0 + Int64(seq) * 1000) }

/// `[old, new]`.
func fc(_ old: JSONValue, _ new: JSONValue) -> FieldChange { FieldChange(old: old, new: new) }

/// The ids of a column's cards in board order (archived ones only when asked).
func order(_ board: Board, _ column: ColumnID, includeArchived: Bool = false) -> [CardID] {
    board.cards(in: column, includeArchived: includeArchived).map(\.id)
}

/// Asserts that `op` is a no-op on `board` as `actor`: accepted, `isNoop`, board and seq unchanged, both entry points.
func expectNoop(
    _ op: Op, on board: Board, as actor: UserID = "alice", sourceLocation: SourceLocation = #_sourceLocation
) {
    let context = ctx(actor, on: board)
    switch apply(op, to: board, context: context) {
    case .failure(let r):
        Issue.record("\(op.kind) was rejected: \(r)", sourceLocation: sourceLocation)
    case .success(let change):
        let isNoop = change.isNoop
        let unchanged = change.board == board
        #expect(isNoop, "\(op.kind) should be a no-op; it changed \(change.activity.changes)", sourceLocation: sourceLocation)
        #expect(unchanged, "a no-op \(op.kind) leaves the board alone", sourceLocation: sourceLocation)
        #expect(change.board.seq == board.seq, sourceLocation: sourceLocation)
        #expect(change.activity.changes.isEmpty, sourceLocation: sourceLocation)
        #expect(change.inverse == nil, sourceLocation: sourceLocation)
    }
    var mutated = board
    if case .success(let result) = mutated.apply(op, context: context) {
        let isNoop = result.isNoop
        let unchanged = mutated == board
        #expect(isNoop, "the mutating apply agrees it is a no-op", sourceLocation: sourceLocation)
        #expect(unchanged, "the mutating apply leaves the board alone", sourceLocation: sourceLocation)
    }
}
