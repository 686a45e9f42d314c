import ArgumentParser
import BoardCore
import CorkApp

/// `cork search QUERY`: cards matching BoardCore's query language.
struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search", abstract: "Find cards: label:bug @me due:overdue is:open \"some words\" …",
        discussion: """
            The query language (also the full-screen client's / filter and cork archive list): terms separated by \
            spaces, all of which a card must pass; A|B in a value means either; -TERM negates a term.
              words, "a phrase"      in the title, description or ref (a number alone: that card)
              #12                    card 12
              label:bug              a label's name or id          @me, @bob, assignee:none
              due:overdue|today|week|none|any|2026-03-01|<2026-03-01|>=2026-03-01
              is:open|closed, is:overdue, is:archived (archived cards only)
              column:doing           a column's name or id
              milestone:v1           a milestone's title or id     milestone:none or no:milestone
              no:due, no:assignee    the same as due:none, assignee:none
              ref:ci:*               the ref, with * and ? globs
            """)

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The query (several arguments are joined with spaces).") var query: [String] = []
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let parsed: Query
        do {
            parsed = try Query.parse(query.joined(separator: " "))
        } catch {
            throw CorkFailure.usage("bad query: \(error)")
        }
        let json = json
        let session = try connection.session()
        try await session.withBoard { client, board in
            let context = QueryContext(today: today, me: await client.user)
            let cards = parsed.filter(board, context: context)
            Output.result(
                CorkJSON.SearchResult(board: board.id, query: parsed.description, cards: cards), json: json,
                text: BoardText.results(cards, in: board, today: today))
        }
    }
}
