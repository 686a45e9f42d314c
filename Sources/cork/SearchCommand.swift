import ArgumentParser
import BoardCore
import CorkApp

/// `cork search QUERY`: cards matching BoardCore's query language.
struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search", abstract: "Find cards: label:bug @me due:overdue is:open \"some words\" …")

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
            if json {
                Output.line(CorkJSON.line(CorkJSON.SearchResult(board: board.id, query: parsed.description, cards: cards)))
            } else {
                Output.write(BoardText.results(cards, in: board, today: today))
            }
        }
    }
}
