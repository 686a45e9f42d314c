import NIOCore

/// The ops one publisher sends: the `OpMix` of moves, edits, adds and chat lines, about 200 bytes a line, spread
/// round-robin over the run's boards.
///
/// Each publisher keeps a pool of the cards it added on each board. `move` sends one of them to the next of the
/// board's first three columns, `edit` retitles one; with an empty pool both add a card instead. `add` adds a card
/// with a fresh id (`L<run>-<publisher>-<n>`) until the pool holds `cardsPerBoard` cards; from then on it purges the
/// oldest card of the pool instead (one add or purge each time), so the board stays bounded (`cards_max` is 10,000)
/// while cards keep coming and going. Purging takes the owner role: `--spawn` makes publishers owners of the load
/// boards. A card joins the pool only once its add is acknowledged (``answered(mut:accepted:)``): a publisher never
/// moves, edits or purges a card whose add the server refused (a `rate_limited` add, say), so every `not_found` it
/// counts is the server's doing, not its own.
struct OpSource {
    /// The columns a new board has (Protocol.md, `board.create`).
    static let columns = ["todo", "doing", "done"]
    /// Filler that brings a line to about 200 bytes.
    static let filler = String(repeating: "lorem ipsum dolor sit amet ", count: 6)

    /// What `next` produced.
    struct Op {
        var line: ByteBuffer
        /// Index into the source's boards.
        var board: Int
        var kind: OpMix.Kind
        /// Set when the op is a purge (counted apart from adds).
        var purges = false
    }

    private struct PooledCard {
        var id: String
        var column: Int
    }

    let boards: [String]
    let mix: OpMix
    let cardPrefix: String
    /// Most cards this publisher holds on each board.
    let cardsPerBoard: Int
    /// Ops picked so far on each board, by kind (`OpMix.Kind.allCases` order). The kind is picked from the board's
    /// own counts, so each board gets the mix: picked from the publisher's, a mix whose pattern repeats every 20 ops
    /// gave each of 5 boards its own fixed part of it (one board all the adds, another none).
    private var sent: [[Int]]
    private var pools: [[PooledCard]]
    /// Cards whose add is in flight, by the add's `mut`.
    private var adding: [UInt64: (board: Int, card: PooledCard)] = [:]
    private var oldest: [Int]
    private var cursors: [Int]
    private var nextCard = 0
    private var nextBoard = 0

    init(boards: [String], mix: OpMix, run: String, publisher: Int, cardsPerBoard: Int) {
        self.boards = boards
        self.mix = mix
        self.cardPrefix = "L\(run)-\(publisher)-"
        self.cardsPerBoard = max(1, cardsPerBoard)
        sent = Array(repeating: [Int](repeating: 0, count: OpMix.Kind.allCases.count), count: boards.count)
        pools = Array(repeating: [], count: boards.count)
        oldest = Array(repeating: 0, count: boards.count)
        cursors = Array(repeating: 0, count: boards.count)
    }

    /// The next op line (with its `\n`), under `mut`.
    mutating func next(mut: UInt64) -> Op {
        let board = nextBoard
        nextBoard = (nextBoard + 1) % boards.count
        let kind = mix.next(after: sent[board])
        sent[board][OpMix.Kind.allCases.firstIndex(of: kind) ?? 0] += 1
        var pool = pools[board]
        defer { pools[board] = pool }
        let live = pool.count - oldest[board]
        switch kind {
        case .chat:
            let text = "op \(mut) from \(cardPrefix) " + Self.filler.prefix(120)
            return Op(line: line(board, mut, #"{"kind":"chat","text":"\#(text)"}"#), board: board, kind: kind)
        case .move where live > 0:
            let i = oldest[board] + cursors[board] % live
            cursors[board] += 1
            pool[i].column = (pool[i].column + 1) % Self.columns.count
            let op = #"{"kind":"card.move","card":"\#(pool[i].id)","to_column":"\#(Self.columns[pool[i].column])"}"#
            return Op(line: line(board, mut, op), board: board, kind: kind)
        case .edit where live > 0:
            let i = oldest[board] + cursors[board] % live
            cursors[board] += 1
            let title = "edit \(mut) of \(pool[i].id) " + Self.filler.prefix(100)
            return Op(line: line(board, mut, #"{"kind":"card.edit","card":"\#(pool[i].id)","title":"\#(title)"}"#), board: board, kind: kind)
        case .add where live >= cardsPerBoard:
            let card = pool[oldest[board]].id
            oldest[board] += 1
            if oldest[board] > 4_096 {
                pool.removeFirst(oldest[board])
                oldest[board] = 0
            }
            return Op(line: line(board, mut, #"{"kind":"card.purge","card":"\#(card)"}"#), board: board, kind: kind, purges: true)
        case .add, .move, .edit:
            nextCard += 1
            let card = cardPrefix + String(nextCard)
            adding[mut] = (board, PooledCard(id: card, column: 0))
            let title = "load card \(card) " + Self.filler.prefix(110)
            return Op(line: line(board, mut, #"{"kind":"card.add","card":"\#(card)","column":"todo","title":"\#(title)"}"#), board: board, kind: .add)
        }
    }

    /// The op `mut` was answered: an add that was accepted puts its card in the pool; a refused one is forgotten.
    mutating func answered(mut: UInt64, accepted: Bool) {
        guard let added = adding.removeValue(forKey: mut), accepted else { return }
        pools[added.board].append(added.card)
    }

    /// Cards in the pool of board `board` (index into `boards`).
    func poolSize(_ board: Int) -> Int { pools[board].count - oldest[board] }

    private func line(_ board: Int, _ mut: UInt64, _ op: String) -> ByteBuffer {
        ByteBuffer(string: #"{"type":"op","board":"\#(boards[board])","mut":\#(mut),"op":\#(op)}"# + "\n")
    }
}
