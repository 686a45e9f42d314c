// How long a client takes to decode the lines a server sends, both ways in one binary: the one-pass decode
// (`LineCoder.decodeServer`: the scan's tape, a delta read by `TapeReader`) and the reference (`decodeServerReference`:
// Foundation's `JSONDecoder`), on a delta of each common kind and on the snapshot of a 500-card board, in thread CPU
// time. Then the other direction's encoding: a client's lines through the wire's writer (`LineCoder.encode`, now
// `CompactJSONEncoder`) against Foundation's `JSONEncoder` with sorted keys (what it used before). Built and run by
// `Benchmarks/ServerDecodeHarness/run.sh`.
import BoardCore
import BoardWire
import Foundation


let coder = LineCoder()
var board = Board(id: "main", name: "Main", owner: "alice")
board.members["bob"] = Member(id: "bob", role: .editor)
var deltas: [(String, [UInt8])] = []
for n in 1...500 {
    let op = Op.addCard(
        AddCard(
            card: CardID("c\(n)"), column: n % 3 == 0 ? "doing" : "todo", title: "Card number \(n): fix the thing",
            description: n % 5 == 0 ? "Steps:\n1. open\n2. click \"save\"\n3. see the error" : "", due: n % 4 == 0 ? Day(year: 2026, month: 3, day: 1 + n % 28) : nil,
            assignees: n % 2 == 0 ? ["bob"] : []))
    let context = ApplyContext(actor: "alice", role: .owner, now: Timestamp(milliseconds: 1_767_261_600_000 + Int64(n)), seq: UInt64(n))
    guard case .success(let change) = board.apply(op, context: context) else { fatalError("op \(n)") }
    if n == 500 { deltas.append(("delta card.add", LineWriter.deltaLine(board: "main", seq: board.seq, at: context.now, actor: "alice", clientID: "tab-1", mut: 9, op: op, activity: change.activity))) }
}
for (name, op) in [
    ("delta card.move", Op.moveCard(card: "c7", column: "doing", placement: Placement(after: "c9"))),
    ("delta card.edit", Op.editCard(EditCard(card: "c8", title: "A new title for card 8"))),
    ("delta chat", Op.chat(text: "@bob the build is green again, thanks")),
] {
    let context = ApplyContext(actor: "alice", role: .owner, now: Timestamp(milliseconds: 1_767_261_700_000), seq: board.seq + 1)
    guard case .success(let change) = board.apply(op, context: context) else { fatalError(name) }
    deltas.append((name, LineWriter.deltaLine(board: "main", seq: board.seq, at: context.now, actor: "alice", clientID: "tab-1", mut: 10, op: op, activity: change.activity)))
}
let snapshot = coder.encode(ServerMessage.snapshot(ServerMessage.Snapshot(board: "main", seq: board.seq, epoch: "e", reason: .initial, state: board)))

print("line | bytes | JSONDecoder (reference) | one pass | ratio")
print("---|---|---|---|---")
for (name, line) in deltas + [("snapshot, 500 cards", snapshot)] {
    let batch = line.count > 10_000 ? 20 : 5_000
    precondition((try? coder.decodeServer(line)) == (try? coder.decodeServerReference(line)))
    let reference = median(batch: batch) { _ = try? coder.decodeServerReference(line) }
    let onePass = median(batch: batch) { _ = try? coder.decodeServer(line) }
    print("\(name) | \(line.count) | \(format(reference)) | \(format(onePass)) | \(String(format: "%.2f", reference / onePass))×")
}

print()
print("client line | bytes | JSONEncoder, sorted keys (before) | LineCoder.encode (CompactJSONEncoder) | ratio")
print("---|---|---|---|---")
let sorted = JSONEncoder()
sorted.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
let clientLines: [(String, ClientMessage)] = [
    ("op card.move", .op(ClientMessage.Mutation(board: "main", mut: 41, op: .op(.moveCard(card: "c7", column: "doing", placement: Placement(after: "c9")))))),
    ("op card.add", .op(ClientMessage.Mutation(board: "main", mut: 42, op: .op(.addCard(AddCard(card: "c900", column: "todo", title: "Write the release notes", assignees: ["bob"])))))),
    ("op chat", .op(ClientMessage.Mutation(board: "main", mut: 43, op: .op(.chat(text: "@bob the build is green again, thanks"))))),
]
for (name, message) in clientLines {
    let now = coder.encode(message)
    precondition((try? coder.decodeClient(now)) == message)
    let before = median(batch: 5_000) { _ = try? sorted.encode(message) }
    let after = median(batch: 5_000) { _ = coder.encode(message) }
    print("\(name) | \(now.count) | \(format(before)) | \(format(after)) | \(String(format: "%.2f", before / after))×")
}
