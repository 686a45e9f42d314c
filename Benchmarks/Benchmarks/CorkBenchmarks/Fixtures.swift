import BoardCore
import BoardWire

/// The inputs every benchmark shares, built once through the real reducer and encoders.
enum Fixtures {
    /// The acting user (the board's owner).
    static let actor: UserID = "alice"
    /// A fixed clock reading: the reducer takes time as an input.
    static let now = Timestamp(milliseconds: 1_767_261_691_000)
    /// Cards on the benchmark board.
    static let cardCount = 1_000

    /// The context of the change at `seq`.
    static func context(seq: UInt64) -> ApplyContext {
        ApplyContext(actor: actor, role: .owner, now: now, seq: seq)
    }

    /// A board with `cardCount` cards spread over TODO, DOING and DONE, each added by a `card.add` op.
    static let board: Board = {
        var board = Board(id: "main", name: "Benchmark", owner: actor)
        let columns = Board.defaultColumns.map(\.id)
        for i in 0..<cardCount {
            let op = Op.addCard(
                AddCard(
                    card: CardID("c\(i)"), column: columns[i % columns.count], title: "Card number \(i)",
                    description: "Some words about card \(i)."))
            guard case .success = board.apply(op, context: context(seq: board.seq + 1)) else {
                fatalError("fixture op \(i) was rejected")
            }
        }
        return board
    }()

    /// A `card.move` delta's parts (a 344-byte line): the op a client sent and the activity the reducer made of it.
    static let move: (op: Op, activity: Activity, seq: UInt64) = {
        var board = Fixtures.board
        let op = Op.moveCard(card: "c500", column: "doing", placement: Placement(after: "c16"))
        let seq = board.seq + 1
        switch board.apply(op, context: context(seq: seq)) {
        case .success(let result): return (op, result.activity, seq)
        case .failure(let rejection): fatalError("fixture move was rejected: \(rejection)")
        }
    }()

    /// The same move as a `delta` server message (the Foundation path's input).
    static let moveDelta = ServerMessage.Delta(
        board: "main", seq: move.seq, at: now, actor: actor, clientID: "cork-alice-laptop", mut: 42, op: move.op,
        activity: move.activity)

    /// The client's `op` line for that move, as `LineCoder` encodes it (terminator included).
    static let opLine: [UInt8] = LineCoder().encodeLine(
        .op(ClientMessage.Mutation(board: "main", mut: 42, op: .op(move.op))))
}
