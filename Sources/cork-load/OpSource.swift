import NIOCore

/// The ops one simulated client sends: a steady mix of `chat`, `card.add` and `card.move`, about 200 bytes a line.
///
/// A third of the ops are chat lines; the others add cards with fresh ids (`L<run>-<client>-<n>`) until the client
/// holds `cards` of them, then move those cards round the board's first three columns (with no cards, every op is a
/// chat line). Every op changes the board, so every ack has a delta. The board's card count stays bounded
/// (`cards_max` is 10,000, and placing a card costs more as its column grows), at the price of few `card.add` ops
/// once the pool is full.
struct OpSource {
    /// A card this client owns and where it was last sent.
    struct PooledCard {
        var id: String
        var column: Int
    }

    /// The columns a new board has (Protocol.md, `board.create`).
    static let columns = ["todo", "doing", "done"]
    /// Filler that brings a line to about 200 bytes.
    static let filler = String(repeating: "lorem ipsum dolor sit amet ", count: 6)

    let board: String
    let cardPrefix: String
    /// Most cards this client adds.
    let cards: Int
    private(set) var pool: [PooledCard] = []
    private var nextCard = 0
    private var moveCursor = 0
    private var count = 0

    /// A source for client `client` of run `run` on `board` that adds at most `cards` cards.
    init(board: String, run: String, client: Int, cards: Int) {
        self.board = board
        self.cardPrefix = "L\(run)-\(client)-"
        self.cards = cards
    }

    /// The next op line (with its `\n`), and the id of the card it adds, if it adds one.
    mutating func next(mut: UInt64) -> (line: ByteBuffer, adds: String?) {
        count += 1
        let slot = count % 3
        if slot == 1, nextCard < cards {
            nextCard += 1
            let card = cardPrefix + String(nextCard)
            let title = "load card \(card) " + Self.filler.prefix(110)
            return (line(mut, #"{"kind":"card.add","card":"\#(card)","column":"todo","title":"\#(title)"}"#), card)
        }
        if slot != 0, !pool.isEmpty {
            moveCursor = (moveCursor + 1) % pool.count
            let column = (pool[moveCursor].column + 1) % Self.columns.count
            pool[moveCursor].column = column
            let op = #"{"kind":"card.move","card":"\#(pool[moveCursor].id)","to_column":"\#(Self.columns[column])"}"#
            return (line(mut, op), nil)
        }
        let text = "op \(mut) from \(cardPrefix) " + Self.filler.prefix(120)
        return (line(mut, #"{"kind":"chat","text":"\#(text)"}"#), nil)
    }

    /// A `card.add` was acknowledged: the card can be moved from now on.
    mutating func added(_ card: String) {
        pool.append(PooledCard(id: card, column: 0))
    }

    private func line(_ mut: UInt64, _ op: String) -> ByteBuffer {
        ByteBuffer(string: #"{"type":"op","board":"\#(board)","mut":\#(mut),"op":\#(op)}"# + "\n")
    }
}
