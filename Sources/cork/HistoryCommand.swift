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
            // Page by page until `limit` records: a page of long comments holds fewer than asked (the server bounds
            // a reply's bytes).
            var activities: [Activity] = []
            var more = true
            var before: UInt64?
            do {
                while activities.count < limit, more {
                    let page = try await client.history(card: id, before: before, limit: limit - activities.count)
                    // Oldest first, as Protocol.md promises (sorted here too, whatever order the page came in).
                    let older = page.activities.sorted { $0.seq < $1.seq }
                    activities.insert(contentsOf: older, at: 0)
                    more = page.more
                    guard let first = older.first?.seq else { break }
                    before = first
                }
            } catch {
                throw CorkFailure.from(error)
            }
            if json {
                Output.line(CorkJSON.line(CorkJSON.History(board: board.id, card: id, activities: activities, more: more)))
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
