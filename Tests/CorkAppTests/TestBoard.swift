import BoardCore
import Testing

/// A board built by applying real ops with the real reducer, remembering every change.
///
/// Starts as board `main` (TODO, DOING, DONE) owned by alice; `standard()` adds members, labels, a milestone and
/// a few cards.
struct TestBoard {
    /// 2026-01-01T00:00:00Z.
    static let t0: Int64 = 1_767_225_600_000

    var board: Board
    /// Every accepted change, in order.
    var changes: [Change] = []

    init(_ board: Board = Board(id: "main", name: "Main", owner: "alice")) { self.board = board }

    /// The context for `actor` acting next: their role on the board, seq + 1, one second per seq.
    func context(_ actor: UserID) -> ApplyContext {
        let seq = board.seq + 1
        return ApplyContext(
            actor: actor, role: board.members[actor]?.role ?? .viewer,
            now: Timestamp(milliseconds: Self.t0 + Int64(seq) * 1000), seq: seq)
    }

    /// Applies `op` as `actor`, records an issue when it is rejected, and returns the change with the board before.
    @discardableResult
    mutating func apply(
        _ op: Op, as actor: UserID = "alice", sourceLocation: SourceLocation = #_sourceLocation
    ) -> (change: Change, before: Board)? {
        let before = board
        switch board.applying(op, context: context(actor)) {
        case .success(let change):
            board = change.board
            changes.append(change)
            return (change, before)
        case .failure(let rejection):
            Issue.record("\(op.kind) by \(actor) was rejected: \(rejection)", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// Undoes the change with `seq` as its actor; records an issue when refused.
    @discardableResult
    mutating func undo(seq: UInt64, sourceLocation: SourceLocation = #_sourceLocation) -> (change: Change, before: Board)? {
        guard let original = changes.first(where: { $0.activity.seq == seq }) else {
            Issue.record("no change with seq \(seq)", sourceLocation: sourceLocation)
            return nil
        }
        let before = board
        switch board.applyingUndo(
            of: original.activity, inverse: original.inverse, context: context(original.activity.actor))
        {
        case .success(let change):
            board = change.board
            changes.append(change)
            return (change, before)
        case .failure(let rejection):
            Issue.record("undo of \(seq) was rejected: \(rejection)", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// `apply` for `try`: the change, or a thrown error when it was rejected (recorded as an issue too).
    mutating func change(
        _ op: Op, as actor: UserID = "alice", sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Change {
        let result = apply(op, as: actor, sourceLocation: sourceLocation)
        return try #require(result, sourceLocation: sourceLocation).change
    }

    /// `undo` for `try`: the undo change, or a thrown error when it was refused (recorded as an issue too).
    mutating func undoChange(seq: UInt64, sourceLocation: SourceLocation = #_sourceLocation) throws -> Change {
        let result = undo(seq: seq, sourceLocation: sourceLocation)
        return try #require(result, sourceLocation: sourceLocation).change
    }

    /// Members bob (editor), carol (viewer) and ci-bot (bot); labels bug and docs; milestone v1; cards
    /// #1 "Login bug" (todo, bug), #2 "Write docs" (todo), #3 "Ship corkd" (doing, ref GH-12).
    static func standard() -> TestBoard {
        var t = TestBoard()
        t.apply(.setMember(user: "bob", role: .editor, name: "Bob B."))
        t.apply(.setMember(user: "carol", role: .viewer, name: nil))
        t.apply(.setMember(user: "ci-bot", role: .bot, name: "CI"))
        t.apply(.createLabel(label: "bug", name: "bug", color: HexColor("#d73a4a")!))
        t.apply(.createLabel(label: "docs", name: "Docs", color: HexColor("#0075ca")!))
        t.apply(.createMilestone(milestone: "v1", title: "v1.0", description: nil, due: Day("2026-03-01")))
        t.apply(.addCard(AddCard(card: "c1", column: "todo", title: "Login bug", labels: ["bug"])))
        t.apply(.addCard(AddCard(card: "c2", column: "todo", title: "Write docs")))
        t.apply(.addCard(AddCard(card: "c3", column: "doing", title: "Ship corkd", ref: "GH-12")))
        return t
    }
}
