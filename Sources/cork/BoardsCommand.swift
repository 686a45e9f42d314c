import ArgumentParser
import CorkApp

/// `cork boards` (also `cork board list`): the boards the user is a member of, with role and seq.
struct BoardsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "boards", abstract: "List your boards (role, seq).")

    @OptionGroup var connection: ConnectionOptions
    @Flag(help: "Print JSON.") var json = false

    func run() async throws { try await Self.list(connection, json: json) }

    /// Prints the user's boards: `board  name  role  seq N` lines, or `{"boards":[…]}`.
    static func list(_ connection: ConnectionOptions, json: Bool) async throws {
        let session = try connection.session()
        let boards = try await session.withConnection { client, _ in try await client.boards() }
        let rows = boards.map { CorkJSON.BoardRow(board: $0.board.rawValue, name: $0.name, role: $0.role.rawValue, seq: $0.seq) }
        Output.result(
            CorkJSON.Boards(boards: rows), json: json, text: BoardText.boards(rows.map { ($0.board, $0.name, $0.role, $0.seq) }))
    }
}

extension BoardCommand {
    /// `cork board list`: the same as `cork boards`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List your boards (role, seq); the same as cork boards.")
        @OptionGroup var connection: ConnectionOptions
        @Flag(help: "Print JSON.") var json = false
        func run() async throws { try await BoardsCommand.list(connection, json: json) }
    }
}
