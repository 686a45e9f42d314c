import BoardClient
import ArgumentParser
import BoardCore
import CorkApp

/// `cork history [CARD]`: the latest activity of the board or of one card, oldest first.
struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history", abstract: "Show the latest changes and chat of the board, or of one card.")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The card.") var card: String?
    @Option(help: "How many records (at most 500).") var limit = 50
    @Flag(help: "Print JSON.") var json = false

    func validate() throws {
        guard (1...500).contains(limit) else { throw ValidationError("--limit must be 1…500") }
    }

    func run() async throws {
        let (card, limit, json) = (card, limit, json)
        let session = try connection.session()
        try await session.withBoard { client, board in
            let id = try card.map { text throws(CorkFailure) in try CardOps.card(text, on: board).id }
            let page: HistoryPage
            do {
                page = try await client.history(card: id, limit: limit)
            } catch {
                throw CorkFailure.from(error)
            }
            // Oldest first, as Protocol.md promises (sorted here too, whatever order the page came in).
            let activities = page.activities.sorted { $0.seq < $1.seq }
            if json {
                Output.line(CorkJSON.line(CorkJSON.History(board: board.id, card: id, activities: activities, more: page.more)))
                return
            }
            if activities.isEmpty { Output.line("no activity") }
            for activity in activities {
                Output.line(
                    "\(BoardExport.iso8601(activity.at)) [\(activity.seq)] \(FeedSentence.render(activity, after: board))")
            }
        }
    }
}
