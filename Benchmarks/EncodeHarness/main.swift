// How long the server takes to write a delta line (`LineWriter.storedDelta`) and a client an op line
// (`LineCoder.encode`), per op kind, in thread CPU time. Built and run by `Benchmarks/EncodeHarness/run.sh`.
import BoardCore
import BoardWire
import Foundation

let coder = LineCoder()
var board = Board(id: "main", name: "Main", owner: "alice")
board.members["bob"] = Member(id: "bob", role: .editor)
let ops: [(String, Op)] = [
    ("card.add", .addCard(AddCard(card: "c1", column: "todo", title: "Write the release notes", due: Day(year: 2026, month: 3, day: 1), labels: ["docs"], assignees: ["bob"]))),
    ("card.edit", .editCard(EditCard(card: "c1", title: "ts 00000000001234567890 seq 000000000042 xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"))),
    ("card.move", .moveCard(card: "c1", column: "doing", placement: Placement(after: "c9"), force: nil)),
    ("chat", .chat(text: "@bob the build is green again, thanks")),
]
var n: UInt64 = 0
for (name, op) in ops {
    n += 1
    let context = ApplyContext(actor: "alice", role: .owner, now: Timestamp(milliseconds: 1_767_261_600_000 + Int64(n)), seq: n)
    let applied: Activity
    if case .success(let change) = board.apply(op, context: context) { applied = change.activity } else {
        applied = Activity(seq: n, at: context.now, actor: "alice", kind: op.kind, changes: [:])
    }
    let delta = median(batch: 5_000) { _ = LineWriter.storedDelta(board: "main", seq: n, at: context.now, actor: "alice", clientID: "tab-1", mut: 9, op: op, activity: applied) }
    let message = ClientMessage.op(ClientMessage.Mutation(board: "main", mut: 41, op: .op(op)))
    let client = median(batch: 5_000) { _ = coder.encode(message) }
    print("\(name) | storedDelta \(format(delta)) | client encode \(format(client))")
}
