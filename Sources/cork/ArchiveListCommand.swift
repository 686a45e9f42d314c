import ArgumentParser
import BoardCore
import CorkApp

/// `cork archive CARD` and `cork archive list [QUERY]`: archiving cards, and the archived cards.
struct ArchiveGroup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive", abstract: "Archive (delete) a card, or list the archived cards.",
        discussion: """
            cork archive CARD archives a card (restorable with cork restore CARD); cork archive list [QUERY] lists \
            the archived cards that match a query (the language of cork search). cork purge CARD --yes deletes an \
            archived or live card for good.
            """,
        subcommands: [ArchiveCommand.self, List.self], defaultSubcommand: ArchiveCommand.self)

    /// `cork archive list [QUERY]`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List archived cards, optionally only those matching a query (e.g. label:bug \"login\").")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The query (several arguments are joined with spaces).") var query: [String] = []
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            var parsed: Query
            do {
                parsed = try Query.parse(query.joined(separator: " "))
            } catch {
                throw CorkFailure.usage("bad query: \(error)")
            }
            if !parsed.selectsArchived { parsed.terms.insert(.archived, at: 0) }
            let (selected, json) = (parsed, json)
            let session = try connection.session()
            try await session.withBoard { client, board in
                let cards = selected.filter(board, context: QueryContext(today: today, me: await client.user))
                Output.result(
                    CorkJSON.SearchResult(board: board.id, query: selected.description, cards: cards), json: json,
                    text: cards.isEmpty ? "no archived cards match\n" : BoardText.results(cards, in: board, today: today))
            }
        }
    }
}

/// `cork purge CARD --yes`: deletes a card for good (owners only).
struct PurgeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purge", abstract: "Delete a card for good (owners only); needs --yes.",
        discussion: """
            Unlike cork archive, a purge cannot be restored or undone; later changes to the card fail with gone. \
            Without --yes cork sends nothing and exits 2. Exit 3 (forbidden) unless you own the board.
            """)
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The card.") var card: String
    @Flag(help: "Really delete it for good.") var yes = false
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let (card, yes, json) = (card, yes, json)
        let session = try connection.session()
        try await session.withBoard { client, board in
            let found = try CardOps.card(card, on: board)
            guard yes else {
                throw CorkFailure.usage(
                    "purging deletes #\(found.number) \"\(BoardText.plain(found.title))\" for good; add --yes to do it")
            }
            let outcome = try await session.perform(.purgeCard(card: found.id), on: client)
            Output.result(
                CorkJSON.Purged(board: board.id, seq: outcome.seq, card: found), json: json,
                text: "purged #\(found.number) \(BoardText.plain(found.title))\n")
        }
    }
}
