import BoardClientCore
import BoardCore
import BoardWire

/// The inputs the client benchmarks share: a 10,000-card board built through the real reducer, and deltas of
/// another user's edits.
enum ClientFixture {
    /// The board's owner, who makes the foreign edits.
    static let owner: UserID = "alice"
    /// The client's own user.
    static let me: UserID = "bob"
    /// Cards on the board.
    static let cardCount = 10_000
    /// A fixed clock reading.
    static let now = Timestamp(milliseconds: 1_767_261_691_000)

    /// A board with `cardCount` cards over TODO, DOING and DONE, and `me` as an editor.
    static let board: Board = {
        var board = Board(id: "main", name: "Benchmark", owner: owner)
        let columns = Board.defaultColumns.map(\.id)
        func apply(_ op: Op) {
            let context = ApplyContext(actor: owner, role: .owner, now: now, seq: board.seq + 1)
            guard case .success = board.apply(op, context: context) else { fatalError("fixture op rejected: \(op)") }
        }
        apply(.setMember(user: me, role: .editor, name: nil))
        for i in 0..<cardCount {
            apply(
                .addCard(
                    AddCard(
                        card: CardID("c\(i)"), column: columns[i % columns.count], title: "Card number \(i)",
                        description: "Some words about card \(i).")))
        }
        return board
    }()

    /// An activity record to carry in the deltas (the replica does not read it).
    static let activity: Activity = {
        var scratch = board
        let op = Op.editCard(EditCard(card: "c1", title: "x"))
        let context = ApplyContext(actor: owner, role: .owner, now: now, seq: board.seq + 1)
        guard case .success(let result) = scratch.apply(op, context: context) else { fatalError("fixture edit") }
        return result.activity
    }()

    /// Another user's `card.edit` of a title, committed at `seq`.
    static func foreignEdit(seq: UInt64) -> ServerMessage.Delta {
        let card = CardID("c\(Int(seq % UInt64(cardCount)))")
        let op = Op.editCard(EditCard(card: card, title: "Edited at \(seq)"))
        return ServerMessage.Delta(
            board: "main", seq: seq, at: now, actor: owner, clientID: "other-client", mut: seq, op: op,
            activity: activity)
    }

    /// A client holding the board, with `pending` own edits not yet confirmed, and its first update shown.
    static func live(pending: Int) -> Client {
        var client = Client(board: board)
        for i in 0..<pending {
            let op = PendingOp(
                board: "main", mut: UInt64(i + 1),
                request: .op(.editCard(EditCard(card: CardID("c\(i * 97 % cardCount)"), title: "Mine \(i)"))))
            client.submit(op)
        }
        return client
    }

    /// The client's per-board pipeline: replica and board updates, as the client runs them.
    struct Client {
        var replica: Replica
        var publisher = BoardPublisher()

        init(board: Board) {
            replica = Replica(board: "main", user: ClientFixture.me)
            replica.clientID = "bench-client"
            _ = replica.load(board, seq: board.seq, epoch: "e1")
            replica.subscribed(epoch: "e1")
            if let view = replica.view { _ = publisher.publish(view, cause: .snapshot, changes: .everything) }
        }

        var seq: UInt64 { replica.seq }

        mutating func submit(_ op: PendingOp) {
            replica.enqueue(op, now: ClientFixture.now)
            if let view = replica.view { _ = publisher.publish(view, cause: .local, changes: replica.changes(removing: op)) }
        }

        /// One delta from the server: applied, then the board update made.
        mutating func deliver(_ delta: ServerMessage.Delta) -> BoardUpdate? {
            let received = replica.receive(delta)
            guard !received.applied.isEmpty, let view = replica.view else { return nil }
            return publisher.publish(view, cause: .deltas, changes: received.changes)
        }
    }
}
