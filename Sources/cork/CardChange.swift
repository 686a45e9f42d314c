import BoardClient
import BoardCore
import CorkApp

/// The common shape of the commands that change one card: connect, plan ops against the board, send them in order,
/// print the card after the last one.
enum CardChange {
    /// Connects, plans with `plan` (the card and its ops), applies the ops in order and prints the result: JSON,
    /// or `VERB #N title … — COLUMN` (`(no change)` when every op was a no-op).
    /// `describing`: the line says what changed, as the feed does (`added #2 "Fix login" to milestone "v1" —
    /// DOING`), instead of `VERB` and the card: for changes the card's line does not show (a milestone, a
    /// description).
    static func run(
        _ connection: ConnectionOptions, json: Bool, verb: String, describing: Bool = false,
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
            if describing, !json, changed, let sentence = describe(ops, on: board, as: await client.user),
                let after = await client.board, let card = after.cards[id]
            {
                let column = after.column(card.column)?.name ?? card.column.rawValue
                Output.line("\(sentence) — \(column)")
                return
            }
            try await printCard(
                id, seq: seq, noop: !changed, verb: verb, json: json, client: client, cameFrom: board.cards[id]?.column)
        }
    }

    /// What `ops` do to `board`, in the feed's words and joined by `; ` (nil when one is refused here: the server
    /// applied them to a newer board).
    static func describe(_ ops: [Op], on board: Board, as user: UserID?) -> String? {
        guard let user, let role = board.members[user]?.role else { return nil }
        var scratch = board
        var sentences: [String] = []
        for op in ops {
            let before = scratch
            let context = ApplyContext(actor: user, role: role, now: Timestamp(milliseconds: 0), seq: scratch.seq + 1)
            guard case .success(let result) = scratch.apply(op, context: context) else { return nil }
            if !result.isNoop { sentences.append(FeedSentence.describe(result.activity, after: scratch, before: before)) }
        }
        return sentences.isEmpty ? nil : sentences.joined(separator: "; ")
    }

    /// Prints card `id` as the client's board now shows it.
    static func printCard(
        _ id: CardID, seq: UInt64, noop: Bool, existing: Bool = false, verb: String, json: Bool, client: BoardClient,
        cameFrom: ColumnID? = nil
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
            var suffix = noop ? " (no change)" : ""
            // A soft limit lets the card in; say so, as the feed does (a hard one would have refused it). Not for a
            // card that moved within the column: it added nothing to it.
            if !noop, verb == "moved" || verb == "added", cameFrom != card.column, let limit = board.column(card.column)?.wip {
                let count = board.cards(in: card.column).count
                if count > limit.limit { suffix += " (\(column) is over its WIP limit: \(count)/\(limit.limit))" }
            }
            Output.line("\(verb) \(BoardText.cardLine(card, in: board, today: today)) — \(column)\(suffix)")
        }
    }
}
