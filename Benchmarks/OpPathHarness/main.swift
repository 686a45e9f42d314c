// The op path's pure code timed without the benchmark package (whose release build takes ~15 minutes here):
// `LineCoder.decodeClient` on three op lines and the reducer on a 1,000-card board, in thread CPU time.
// Built and run by `Benchmarks/OpPathHarness/run.sh [SOURCE_ROOT]`, with `-O -wmo`, BoardCore and BoardWire alone.
import BoardCore
import BoardWire

/// Prints p0, p50 and p90 of `samples` (ns).
func report(_ name: String, _ samples: [Double]) {
    let s = samples.sorted()
    print("\(name) | \(format(s[0])) | \(format(s[s.count / 2])) | \(format(s[s.count * 9 / 10]))")
}

/// Per-run time: the mean of batches of `batch` runs, `rounds` batches.
func batches(_ name: String, rounds: Int = 31, batch: Int = 2_000, _ body: () -> Void) {
    report(name, batchSamples(rounds: rounds, batch: batch, body))
}

@inline(never) func keep<T>(_ value: T) { withExtendedLifetime(value) {} }

let coder = LineCoder()
let context = { (seq: UInt64) in ApplyContext(actor: "alice", role: .owner, now: Timestamp(milliseconds: 1_767_261_691_000), seq: seq) }

// Decoding: a card.move (as Benchmarks/ Fixtures.opLine), a card.edit of a title (the profiled load: ~200 bytes),
// a chat line.
let lines: [(String, [UInt8])] = [
    ("card.move", coder.encodeLine(.op(.init(board: "main", mut: 42, op: .op(.moveCard(card: "c500", column: "doing", placement: Placement(after: "c16"))))))),
    ("card.edit title", coder.encodeLine(.op(.init(board: "board-042", mut: 123_456, op: .op(.editCard(EditCard(card: "card-000123", title: String(repeating: "A title of some length ", count: 5)))))))),
    ("chat", coder.encodeLine(.op(.init(board: "main", mut: 7, op: .op(.chat(text: "Deploy is done; the dashboards look fine. Ping me if anything in the queue looks odd — héllo 😀")))))),
]
print("benchmark | p0 | p50 | p90")
for (name, line) in lines {
    guard (try? coder.decodeClient(line)) != nil else { fatalError("\(name) does not decode") }
    batches("decodeClient, \(name) op line (\(line.count - 1) B)") { keep(try? coder.decodeClient(line)) }
    batches("decodeClientReference, \(name) op line") { keep(try? coder.decodeClientReference(line)) }
}

// The reducer in place on 1,000 cards over three columns (as Benchmarks/ Fixtures.board).
var board = Board(id: "main", name: "Benchmark", owner: "alice")
for i in 0..<1_000 {
    let op = Op.addCard(AddCard(card: CardID("c\(i)"), column: Board.defaultColumns[i % 3].id, title: "Card number \(i)", description: "Some words about card \(i)."))
    guard case .success = board.apply(op, context: context(board.seq + 1)) else { fatalError("fixture") }
}
let fixture = board

/// Times each op alone (thread CPU per op), alternating between two ops so that each is a real change.
func perOp(_ name: String, _ ops: [Op], count: Int = 4_000) {
    var b = fixture
    var samples: [Double] = []
    for i in 0..<(count + 200) {
        let op = ops[i % ops.count]
        let start = cpuNanos()
        let result = b.apply(op, context: context(b.seq + 1))
        let end = cpuNanos()
        guard case .success(let r) = result, !r.isNoop else { fatalError("\(name) did not apply") }
        if i >= 200 { samples.append(Double(end - start)) }
    }
    report(name, samples)
}

perOp("reducer card.move (top of another column, then after a card)", [
    .moveCard(card: "c500", column: "doing", placement: .top),
    .moveCard(card: "c500", column: "todo", placement: Placement(after: "c15")),
])
perOp("reducer card.move (end of another column, then before a card)", [
    .moveCard(card: "c500", column: "doing", placement: .bottom),
    .moveCard(card: "c500", column: "todo", placement: Placement(before: "c15")),
])
perOp("reducer card.edit (title)", [
    .editCard(EditCard(card: "c500", title: "Renamed card")), .editCard(EditCard(card: "c500", title: "Card number 500")),
])
do {
    var samples: [Double] = []
    let add = Op.addCard(AddCard(card: "new", column: "doing", title: "A new card", description: "Added by the benchmark."))
    var warm = fixture
    _ = warm.apply(.moveCard(card: "c1", column: "todo", placement: .bottom), context: context(warm.seq + 1))
    for _ in 0..<1_000 {
        var b = warm
        #if NO_PLACEMENT_INDEX
        b.cards.reserveCapacity(b.cards.count + 1)
        #else
        b.reserveCards(b.cards.count + 1)
        #endif
        let start = cpuNanos()
        let result = b.apply(add, context: context(b.seq + 1))
        samples.append(Double(cpuNanos() - start))
        keep(result)
    }
    report("reducer card.add (bottom of a column)", samples)
}
