import ArgumentParser
import CorkApp

/// `cork show [CARD]`: the board, or one card in full.
struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show the board (columns with counts and cards), or one card in full.")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The card: #12, 12 or ref:EXT-ID.") var card: String?
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let session = try connection.session()
        let board = try await session.withBoard { _, board in board }
        if let card {
            let found = try CardOps.card(card, on: board)
            Output.write(
                json ? CorkJSON.line(CorkJSON.CardResult(board: board.id, card: found, seq: board.seq)) + "\n"
                    : BoardText.card(found, in: board, today: today))
        } else {
            Output.write(json ? CorkJSON.line(CorkJSON.BoardResult(board: board)) + "\n" : BoardText.board(board, today: today))
        }
    }
}
