// The full-screen client on a 1,000-card board: each key press through `TUIModel.update`, then `render()`, then the
// renderer's diff against the previous frame (what the runner does per key, short of writing to the terminal), in
// wall-clock time per key press; p50, p99 and the worst of 2,000 presses per key. Not a test: figures for README.
// Built and run by `Benchmarks/TUIHarness/run.sh`, with `-O -wmo` (BoardCore, BoardWire, BoardClientCore, TerminalUI
// and CorkApp without its network parts).
import BoardClient
import BoardCore
import CorkApp
import TerminalUI

@inline(never) func keep<T>(_ value: T) { withExtendedLifetime(value) {} }

/// A board of `cards` cards over five columns, with labels, due dates, assignees, milestones and checklists.
func makeBoard(cards: Int) -> Board {
    var board = Board(
        id: "main", name: "Bench", owner: "alice",
        columns: ["Backlog", "TODO", "DOING", "REVIEW", "DONE"].map { Column(id: ColumnID($0.lowercased()), name: $0) })
    var seq: UInt64 = 0
    func apply(_ op: Op) {
        seq += 1
        let context = ApplyContext(actor: "alice", role: .owner, now: Timestamp(milliseconds: 1_767_225_600_000), seq: seq)
        if case .failure(let rejection) = board.apply(op, context: context) { fatalError("\(op.kind): \(rejection)") }
    }
    apply(.setMember(user: "bob", role: .editor, name: "Bob"))
    for (n, name) in ["bug", "docs", "perf", "ops"].enumerated() {
        apply(.createLabel(label: LabelID(name), name: name, color: HexColor(["#d73a4a", "#0075ca", "#0052cc", "#c2e0c6"][n])!))
    }
    apply(.createMilestone(milestone: "v1", title: "v1.0", description: nil, due: Day(year: 2026, month: 3, day: 1)))
    apply(.createMilestone(milestone: "v2", title: "v2.0", description: nil, due: Day(year: 2026, month: 6, day: 30)))
    for i in 0..<cards {
        let card = CardID("c\(i)")
        apply(.addCard(AddCard(
            card: card, column: board.columns[i % 5].id, title: "Card number \(i) with a title of some length",
            due: i % 3 == 0 ? Day(year: 2026, month: 3, day: 1 + i % 28) : nil,
            labels: i % 4 == 0 ? [LabelID(["bug", "docs", "perf", "ops"][i % 16 / 4])] : [],
            assignees: i % 5 == 0 ? ["bob"] : [], milestone: i % 2 == 0 ? "v1" : nil)))
        if i % 7 == 0 {
            for k in 0..<3 {
                apply(.addChecklistItem(card: card, item: ChecklistItemID("i\(k)"), text: "step \(k)", done: k < i % 3, index: nil))
            }
        }
    }
    return board
}

let board = makeBoard(cards: 1_000)
var model = TUIModel(boardID: "main", width: 200, height: 50, today: Day(year: 2026, month: 3, day: 10)!)
model.board = board
model.user = "alice"
model.connection = .connected(endpoint: "127.0.0.1:7420", user: "alice")
let renderer = Renderer(colorMode: .trueColor)

func key(_ key: Key, _ modifiers: KeyModifiers = []) -> TUIMessage { .key(KeyEvent(key, modifiers)) }

/// Times `presses` key presses: `setUp` runs untimed before each (to put the model where the key means something),
/// then the key's update, render and diff are timed together. Prints p50, p99 and the worst.
@MainActor func measure(_ name: String, presses: Int = 2_000, setUp: (inout TUIModel) -> Void = { _ in }, _ message: TUIMessage) {
    var samples: [UInt64] = []
    samples.reserveCapacity(presses)
    var previous = model.render()
    for _ in 0..<(presses + 100) {
        setUp(&model)
        previous = model.render()
        let start = wallNanos()
        keep(model.update(message))
        let next = model.render()
        keep(renderer.render(from: previous, to: next))
        samples.append(wallNanos() - start)
    }
    let sorted = samples.dropFirst(100).sorted()
    let p50 = sorted[sorted.count / 2]
    let p99 = sorted[sorted.count * 99 / 100]
    print("| \(name) | \(format(Double(p50))) | \(format(Double(p99))) | \(format(Double(sorted.last ?? 0))) |")
}

print("cards: \(board.cards.count), per column: \(board.columns.map { board.count(in: $0.id) })")
print("| key (200×50 terminal, 1,000 cards) | p50 | p99 | worst |")
print("|---|---|---|---|")
measure("j (next card)", setUp: { if $0.row >= 150 { $0.row = 0 } }, key(.character("j")))
measure("k (previous card)", setUp: { if $0.row <= 1 { $0.row = 150 } }, key(.character("k")))
measure("l (next column)", setUp: { $0.column = 1 }, key(.character("l")))
measure("h (previous column)", setUp: { $0.column = 2 }, key(.character("h")))
measure("PgDn", setUp: { if $0.row >= 170 { $0.row = 0 } }, key(.pageDown))
measure("PgUp", setUp: { if $0.row <= 30 { $0.row = 199 } }, key(.pageUp))
measure("Space (pick the card up)", setUp: { $0.carry = nil; $0.row = 100 }, key(.character(" ")))
measure("→ while carrying", setUp: { model in
    model.carry = nil
    model.column = 0
    model.row = 100
    _ = model.update(key(.character(" ")))
}, key(.right))
measure("Enter (card detail)", setUp: { $0.overlay = nil }, key(.enter))
measure("M (milestones)", setUp: { $0.overlay = nil }, key(.character("M")))
measure("v, then Space marks", setUp: { $0.marking = true; $0.marked = [] }, key(.character(" ")))
measure("a typed character", setUp: { $0.focus = .input; if $0.input.text.count > 50 { $0.input = LineEditor() } }, key(.character("a")))
model.focus = .board
model.overlay = nil
/// Another person's op on `board`, as the client hands it over: the new board and what the op changed.
func othersChange(_ op: Op) -> TUIMessage {
    var changed = board
    let context = ApplyContext(actor: "bob", role: .editor, now: Timestamp(milliseconds: 1_767_225_600_000), seq: board.seq + 1)
    if case .failure(let rejection) = changed.apply(op, context: context) { fatalError("\(op.kind): \(rejection)") }
    return .client(.board(BoardUpdate(
        board: changed, cause: .deltas, changes: BoardChanges.of(op, on: board), changedByOthers: op.card.map { [$0] } ?? [])))
}
measure("someone else's edit arrives", setUp: { $0.carry = nil }, othersChange(.editCard(EditCard(card: "c501", title: "Renamed by bob"))))
measure("someone else's move arrives", setUp: { $0.carry = nil }, othersChange(.moveCard(card: "c502", column: "done", placement: .top)))
var everything = board
everything.cards["c501"]?.title = "Renamed by bob"
measure("a change that rebuilds (a snapshot)", setUp: { $0.carry = nil },
    .client(.board(BoardUpdate(board: everything, cause: .snapshot, changedByOthers: ["c501"]))))
