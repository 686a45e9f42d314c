import BoardClient
import BoardCore
import CorkApp

/// The common shape of the commands that change one card: connect, plan ops against the board, send them in order,
/// print the card after the last one.
enum CardChange {
    /// Connects, plans with `plan` (the card and its ops), applies the ops in order and prints the result: JSON,
    /// or `VERB #N title … — COLUMN` (`(no change)` when every op was a no-op).
    static func run(
        _ connection: ConnectionOptions, json: Bool, verb: String,
        plan: @Sendable (Board) throws(CorkFailure) -> (card: CardID, ops: [Op])
    ) async throws {
        let session = try connection.session()
        try await session.withBoard { client, board in
            let (id, ops) = try plan(board)
            var seq = board.seq
            var changed = false
            for op in ops {
                let outcome = try await session.perform(op, on: client)
                seq = outcome.seq
                changed = changed || !outcome.noop
            }
            try await printCard(id, seq: seq, noop: !changed, verb: verb, json: json, client: client)
        }
    }

    /// Prints card `id` as the client's board now shows it.
    static func printCard(
        _ id: CardID, seq: UInt64, noop: Bool, existing: Bool = false, verb: String, json: Bool, client: BoardClient
    ) async throws {
        guard let board = await client.board, let card = board.cards[id] else {
            throw CorkFailure(.failure, "the card \(id) is not on the board after the change")
        }
        if json {
            Output.line(
                CorkJSON.line(
                    CorkJSON.CardResult(
                        board: board.id, card: card, seq: seq, noop: noop ? true : nil, existing: existing ? true : nil)))
        } else {
            let column = board.column(card.column)?.name ?? card.column.rawValue
            let suffix = noop ? " (no change)" : ""
            Output.line("\(verb) \(BoardText.cardLine(card, in: board, today: today)) — \(column)\(suffix)")
        }
    }
}
