import ArgumentParser
import BoardClient
import BoardCore
import CorkApp

/// `cork board`: boards themselves (`create`, `rename`, `list`, `members`, `archive`).
struct BoardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "board", abstract: "Create, rename, list or archive boards; list a board's members.",
        subcommands: [Create.self, Rename.self, Remind.self, List.self, Members.self, Archive.self])

    /// `cork board create NAME [--id ID]`: the wire's `board.create`; the user becomes the board's owner.
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a board (columns TODO, DOING, DONE) that you own.",
            discussion: """
                Any user may create boards except bot accounts. The id defaults to the name in lower case with \
                dashes (Release 2026 → release-2026). Exit 3 when the server refuses (the id is taken, a bot \
                account), 2 for a bad name or id.
                """)

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "The board's display name (with --name: its id).")
        var argument: String

        @Option(help: "The board's id (default: made from the name).")
        var id: String?

        @Option(
            name: .customLong("name"),
            help: "The display name; the argument is then the id, as in `corkd board create ID --name NAME`.")
        var displayName: String?

        @Flag(help: "Print JSON.") var json = false

        func validate() throws {
            if displayName != nil, id != nil {
                throw ValidationError("give the id as the argument with --name, or the name as the argument with --id")
            }
        }

        func run() async throws {
            let name = displayName ?? argument
            let id = displayName == nil ? id : argument
            guard !name.isEmpty, name.count <= Limits.boardNameMaxCharacters else {
                throw CorkFailure.usage("the name must be 1–\(Limits.boardNameMaxCharacters) characters")
            }
            let board: BoardID
            if let id {
                guard let valid = BoardID(validating: id) else { throw CorkFailure.usage("\(id) is not a board id (1–64 of A–Z a–z 0–9 _ . -)") }
                board = valid
            } else {
                guard let made = BoardSlug.id(for: name) else { throw CorkFailure.usage("no id can be made from \"\(name)\"; give --id") }
                board = made
            }
            let session = try connection.session()
            try await session.withConnection { client, _ in
                do {
                    try await client.createBoard(board, name: name)
                } catch let error as ClientError {
                    // The server refused the request itself (the id is taken, a bot account): exit 3, like a reject.
                    if let refusal = error.server, refusal.code == .badRequest || refusal.code == .forbidden {
                        throw CorkFailure(.rejected, "\(refusal.code.rawValue): \(refusal.message)")
                    }
                    throw error
                }
            }
            Output.result(
                CorkJSON.CreatedBoard(board: board, name: name), json: json,
                text: "created board \(board) (\(name)); open it with --board \(board)\n")
        }
    }
}
