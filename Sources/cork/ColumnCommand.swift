import ArgumentParser
import BoardCore
import CorkApp

/// `cork column add|rename|move|remove|wip`: the board's columns.
struct ColumnCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "column", abstract: "Add, rename, move or remove a column, or set its WIP limit.",
        discussion: """
            A column is named by its id or its name in any case (doing finds DOING). Positions count from 1, the \
            leftmost column. Owners and editors may change columns; others get exit 3 (forbidden).
            """,
        subcommands: [Add.self, Rename.self, Move.self, Remove.self, WIP.self, Progress.self])

    /// The report of every column command: `text`'s line (given the column's name before the change, its new name
    /// for an add) and the columns after the change, as text and in JSON.
    static func report(_ text: @escaping @Sendable (_ name: String, _ after: Board) -> String) -> BoardChange.Report {
        BoardChange.Report(
            text: { id, before, after in
                let name = before.column(ColumnID(id))?.name ?? after.column(ColumnID(id))?.name ?? id
                return "\(text(BoardText.plain(name), after)): \(BoardText.columns(after))"
            },
            json: { _, _, after, result in result.columns = after.columns })
    }

    /// The plan of one column op: the op and the column it is about.
    static func plan(_ op: Op) -> BoardChange.Plan {
        var subject = ""
        switch op {
        case .addColumn(let id, _, _), .renameColumn(let id, _), .moveColumn(let id, _), .removeColumn(let id),
            .setWIPLimit(let id, _), .setInProgress(let id, _):
            subject = id.rawValue
        default: break
        }
        return BoardChange.Plan(ops: [op], subject: subject)
    }

    /// Connects, sends the one column op `op` plans against the board, and prints ``report(_:)`` with `text`.
    static func change(
        _ connection: ConnectionOptions, json: Bool, op: @Sendable (Board) throws(CorkFailure) -> Op,
        report text: @escaping @Sendable (_ name: String, _ after: Board) -> String
    ) async throws {
        try await BoardChange.run(
            connection, json: json, plan: { board throws(CorkFailure) in plan(try op(board)) }, report: report(text))
    }

    /// `cork column add NAME [--at N] [--id ID]`.
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a column (at the right end, or at --at N).",
            discussion: "The id defaults to the name in lower case with dashes (In review → in-review).")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The column's name.") var name: String
        @Option(parsing: .unconditional, help: "Its position, counting from 1 (default: the right end).") var at: Int?
        @Option(help: "Its id (default: made from the name).") var id: String?
        @Flag(help: "Print JSON.") var json = false

        func validate() throws {
            if let at, at < 1 { throw ValidationError("--at counts from 1") }
        }

        func run() async throws {
            let (name, at, id) = (name, at, id)
            try await ColumnCommand.change(connection, json: json) { board throws(CorkFailure) in
                try ColumnOps.add(name: name, position: at, id: id, on: board)
            } report: { name, _ in "added column \(name)" }
        }
    }

    /// `cork column rename COLUMN NAME`.
    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rename a column.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The column (id or name).") var column: String
        @Argument(help: "The new name.") var name: String
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let (column, name) = (column, name)
            try await ColumnCommand.change(connection, json: json) { board throws(CorkFailure) in
                try ColumnOps.rename(column, to: name, on: board)
            } report: { old, _ in "renamed column \(old) → \(BoardText.plain(name))" }
        }
    }

    /// `cork column move COLUMN POSITION`.
    struct Move: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Move a column to a position (1 = leftmost; past the end = rightmost).")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The column (id or name).") var column: String
        @Argument(help: "The new position, counting from 1.") var position: Int
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let (column, position) = (column, position)
            try await ColumnCommand.change(connection, json: json) { board throws(CorkFailure) in
                try ColumnOps.move(column, to: position, on: board)
            } report: { name, _ in "moved column \(name)" }
        }
    }

    /// `cork column remove COLUMN`.
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove an empty column.",
            discussion: """
                The server refuses (exit 3, not_empty) while the column holds cards, archived ones included: move \
                them out, or purge the archived ones, first. A board keeps at least one column.
                """)
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The column (id or name).") var column: String
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let column = column
            try await ColumnCommand.change(connection, json: json) { board throws(CorkFailure) in
                try ColumnOps.remove(column, on: board)
            } report: { name, _ in "removed column \(name)" }
        }
    }

    /// `cork column wip COLUMN N [--hard|--soft] | --none`.
    struct WIP: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "wip", abstract: "Set a column's WIP limit (soft by default), or clear it with --none.",
            discussion: """
                A soft limit lets cards in and marks the change "over its WIP limit"; a hard one makes the server \
                refuse (exit 3, wip_limit) an add or move that would pass it. The limit is 1–\(Limits.wipLimitMax).
                """)
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The column (id or name).") var column: String
        @Argument(help: "The most unarchived cards it should hold.") var limit: Int?
        @Flag(help: "Refuse adds and moves past the limit.") var hard = false
        @Flag(help: "Only warn past the limit (the default).") var soft = false
        @Flag(help: "Clear the limit.") var none = false
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let (column, limit, hard, soft, none) = (column, limit, hard, soft, none)
            try await ColumnCommand.change(connection, json: json) { board throws(CorkFailure) in
                try ColumnOps.wip(column, limit: limit, hard: hard, soft: soft, none: none, on: board)
            } report: { name, _ in
                limit.map { "set the WIP limit of \(name) to \($0) (\(hard ? "hard" : "soft"))" } ?? "cleared the WIP limit of \(name)"
            }
        }
    }

    /// `cork column progress COLUMN on|off`.
    struct Progress: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "progress", abstract: "Mark a column as in progress (a blocked card cannot enter it) or not.",
            discussion: """
                By default only the column with id doing is in progress. A card blocked by open cards (cork block) \
                is refused (exit 3, blocked) when moved into an in-progress column, unless an editor moves it with \
                cork move --force REASON.
                """)
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The column (id or name).") var column: String
        @Argument(help: "on or off.") var state: String
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let (column, state) = (column, state)
            guard ["on", "off"].contains(state.lowercased()) else { throw CorkFailure.usage("give on or off, not \(state)") }
            let on = state.lowercased() == "on"
            try await ColumnCommand.change(connection, json: json) { board throws(CorkFailure) in
                try ColumnOps.inProgress(column, on: on, on: board)
            } report: { name, _ in
                "marked \(name) as \(on ? "in progress" : "not in progress")"
            }
        }
    }
}
