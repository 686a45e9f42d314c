import ArgumentParser
import CorkApp

/// `cork boards`: the boards the user is a member of.
struct BoardsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "boards", abstract: "List your boards.")

    @OptionGroup var connection: ConnectionOptions
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let session = try connection.session()
        let boards = try await session.withConnection { client, _ in try await client.boards() }
        let rows = boards.map { CorkJSON.BoardRow(board: $0.board.rawValue, name: $0.name, role: $0.role.rawValue, seq: $0.seq) }
        if json {
            Output.line(CorkJSON.line(CorkJSON.Boards(boards: rows)))
        } else {
            Output.write(BoardText.boards(rows.map { ($0.board, $0.name, $0.role, $0.seq) }))
        }
    }
}
