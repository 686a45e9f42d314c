import ArgumentParser
import BoardCore
import BoardServer
import BoardStore

/// `corkd board`: create, list, rename, archive and unarchive boards, whether or not the server runs.
struct BoardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "board",
        abstract: "Create, list, rename, archive and unarchive boards.",
        discussion: """
            Works whether or not the server runs: with it running, a change is applied by the server before the \
            command returns (at most --wait seconds); without, it is applied to the store.

            Archiving keeps a board's data but stops serving it: it leaves `boards`, its subscribers get not_found, \
            and ops, subscribe, fetch and history on it get not_found, as for a board that does not exist. Its id \
            stays taken. `corkd board list --all` shows it; `corkd board unarchive ID` brings it back as it was.
            """,
        subcommands: [Create.self, List.self, Rename.self, Archive.self, Unarchive.self])

    /// Runs one board command and exits with its failure's code.
    static func run(_ command: AdminCommand, data: DataOptions, admin: AdminOptions, done: String, json: some Encodable) async throws {
        let administration = try await admin.open(data)
        let failures = try await admin.apply([command], with: administration)
        await administration.close()
        if let failure = failures[0] { throw CorkdExit.fail(failure) }
        try Console.result(admin.json ? CorkdJSON.line(json) : done + "\n")
    }

    /// What `--json` prints for a change.
    struct Printed: Encodable {
        var board: String
        var name: String?
        var owner: String?
        var archived: Bool?
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create boards (columns TODO, DOING, DONE) owned by a user.")

        @OptionGroup var data: DataOptions
        @OptionGroup var admin: AdminOptions

        @Argument(help: "The new boards' ids (1–64 of A–Z a–z 0–9 _ . -).")
        var ids: [String]

        @Option(help: "The display name (default: the id); only with one id.")
        var name: String?

        @Option(help: "The board's owner, created if new (default: owner, the user of the first start).")
        var owner: String = "owner"

        func run() async throws {
            guard !ids.isEmpty else { throw CorkdExit.usage("give the id of the board to create") }
            guard name == nil || ids.count == 1 else { throw CorkdExit.usage("--name goes with one board id") }
            var boards: [BoardID] = []
            for id in ids {
                guard let board = BoardID(validating: id) else { throw CorkdExit.usage("\(id) is not a board id (1–64 of A–Z a–z 0–9 _ . -)") }
                boards.append(board)
            }
            // The same rule as `board.create` over the wire (length, not only spaces, no control characters).
            if let name, let problem = Board.nameProblem(name) { throw CorkdExit.usage("--name: \(problem)") }
            guard let owner = UserID(validating: self.owner) else { throw CorkdExit.usage("--owner \(self.owner) is not a user name") }
            let administration = try await admin.open(data)
            let commands = boards.map { AdminCommand.createBoard(board: $0, name: name ?? $0.rawValue, owner: owner) }
            let failures = try await admin.apply(commands, with: administration)
            await administration.close()
            var output = ""
            for (board, failure) in zip(boards, failures) {
                if let failure {
                    Console.error("corkd: \(board): \(failure.message)\n")
                } else if admin.json {
                    output += CorkdJSON.line(Printed(board: board.rawValue, name: name ?? board.rawValue, owner: owner.rawValue))
                } else {
                    output += "created board \(board) (\(name ?? board.rawValue)), owned by \(owner)\n"
                }
            }
            try Console.result(output)
            if let exit = CorkdExit.worst(failures) { throw exit }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the boards: id, seq, name (--all: archived ones too).")

        @OptionGroup var data: DataOptions

        @Flag(help: "Include archived boards.")
        var all = false

        @Flag(help: "Print JSON: {\"boards\":[{\"board\",\"name\",\"seq\",\"archived\"}]}.")
        var json = false

        struct Row: Encodable {
            var board: String
            var name: String
            var seq: UInt64
            var archived: Bool
        }

        struct Rows: Encodable {
            var boards: [Row]
        }

        func run() async throws {
            let administration = try await AdminOptions().open(data)
            let records: [BoardRecord]
            do {
                records = try await administration.store.boards()
            } catch {
                await administration.close()
                throw CorkdExit.fail(AdminFailure(.failed, "the store: \(error.message)"))
            }
            await administration.close()
            let rows = records.filter { all || !$0.archived }
                .map { Row(board: $0.id.rawValue, name: $0.name, seq: $0.seq, archived: $0.archived) }
            if json {
                try Console.result(CorkdJSON.line(Rows(boards: rows)))
                return
            }
            let width = rows.map(\.board.count).max() ?? 0
            let seqWidth = rows.map { String($0.seq).count }.max() ?? 0
            var text = ""
            for row in rows {
                let id = row.board.padding(toLength: width, withPad: " ", startingAt: 0)
                let seq = String(repeating: " ", count: seqWidth - String(row.seq).count) + String(row.seq)
                text += "\(id)  seq \(seq)  \(row.name)\(row.archived ? "  (archived)" : "")\n"
            }
            try Console.result(text)
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rename a board (a board.rename by corkd, seen live by its subscribers).")

        @OptionGroup var data: DataOptions
        @OptionGroup var admin: AdminOptions

        @OptionGroup var argument: BoardArgument

        @Argument(help: "The new display name.")
        var name: String

        func run() async throws {
            let board = try argument.board()
            try await BoardCommand.run(
                .renameBoard(board: board, name: name), data: data, admin: admin, done: "renamed board \(board) to \(name)",
                json: Printed(board: board.rawValue, name: name))
        }
    }

    /// The board id argument of `archive` and `unarchive`.
    struct BoardArgument: ParsableArguments {
        @Argument(help: "The board's id.")
        var id: String

        /// The id, validated.
        func board() throws -> BoardID {
            guard let board = BoardID(validating: id) else { throw CorkdExit.usage("\(id) is not a board id") }
            return board
        }

        /// Archives (`archived`) or unarchives the board.
        func setArchived(_ archived: Bool, data: DataOptions, admin: AdminOptions) async throws {
            let board = try board()
            try await BoardCommand.run(
                archived ? .archiveBoard(board: board) : .unarchiveBoard(board: board), data: data, admin: admin,
                done: "\(archived ? "archived" : "unarchived") board \(board)",
                json: Printed(board: board.rawValue, archived: archived))
        }
    }

    struct Archive: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Archive a board: kept, no longer served (its subscribers get not_found).")

        @OptionGroup var data: DataOptions
        @OptionGroup var admin: AdminOptions
        @OptionGroup var board: BoardArgument

        func run() async throws { try await board.setArchived(true, data: data, admin: admin) }
    }

    struct Unarchive: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Bring an archived board back, as it was.")

        @OptionGroup var data: DataOptions
        @OptionGroup var admin: AdminOptions
        @OptionGroup var board: BoardArgument

        func run() async throws { try await board.setArchived(false, data: data, admin: admin) }
    }
}
