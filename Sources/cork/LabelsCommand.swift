import ArgumentParser
import BoardCore
import CorkApp

/// `cork labels [list|add|color|rename|remove]`: the board's labels themselves (`cork label CARD ±L` puts them on
/// cards).
struct LabelsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "labels", abstract: "List the board's labels, or add, recolour, rename or remove one.",
        discussion: """
            A label is named by its id or its name in any case. A colour is #RRGGBB or one of \
            \(LabelOps.colorNames.keys.filter { $0 != "grey" }.sorted().joined(separator: ", ")). Removing a label \
            takes it off every card. Owners and editors may change labels; others get exit 3 (forbidden).
            """,
        subcommands: [List.self, Add.self, Color.self, Rename.self, Remove.self], defaultSubcommand: List.self)

    /// The report of a label change: `text`'s line and the labels after it.
    static func change(
        _ connection: ConnectionOptions, json: Bool, op: @escaping @Sendable (Board) throws(CorkFailure) -> Op,
        text: @escaping @Sendable (_ name: String, _ after: Board) -> String
    ) async throws {
        try await BoardChange.run(
            connection, json: json,
            plan: { board throws(CorkFailure) in
                let planned = try op(board)
                var subject = ""
                switch planned {
                case .createLabel(let id, _, _), .updateLabel(let id, _, _), .deleteLabel(let id): subject = id.rawValue
                default: break
                }
                return BoardChange.Plan(ops: [planned], subject: subject)
            },
            report: BoardChange.Report(
                text: { id, before, after in
                    let name = before.labels.first { $0.id.rawValue == id }?.name ?? after.labels.first { $0.id.rawValue == id }?.name ?? id
                    return text(BoardText.plain(name), after)
                },
                json: { _, _, after, result in result.labels = after.labels }))
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the labels, their colours and how many cards carry each.")
        @OptionGroup var connection: ConnectionOptions
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let json = json
            try await connection.session().withBoard { _, board in
                Output.result(CorkJSON.Labels(board), json: json, text: LabelOps.list(board).joined(separator: "\n") + "\n")
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a label (in --color, or the colour its name gets: bug is red, docs blue, …).")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The name.") var name: String
        @Option(help: "#RRGGBB or a colour name.") var color: String?
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let (name, color) = (name, color)
            try await LabelsCommand.change(connection, json: json) { board throws(CorkFailure) in
                try LabelOps.add(name: name, color: color, on: board)
            } text: { label, after in "created label \(label) \(after.labels.first { $0.name == label }?.color.description ?? "")" }
        }
    }

    struct Color: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "color", abstract: "Give a label another colour.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The label (id or name).") var label: String
        @Argument(help: "#RRGGBB or a colour name.") var color: String
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let (label, color) = (label, color)
            try await LabelsCommand.change(connection, json: json) { board throws(CorkFailure) in
                try LabelOps.recolor(label, to: color, on: board)
            } text: { name, after in "label \(name) is \(after.labels.first { $0.name == name }?.color.description ?? color) now" }
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rename a label.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The label (id or name).") var label: String
        @Argument(help: "The new name.") var name: String
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let (label, name) = (label, name)
            try await LabelsCommand.change(connection, json: json) { board throws(CorkFailure) in
                try LabelOps.rename(label, to: name, on: board)
            } text: { old, _ in "renamed label \(old) → \(BoardText.plain(name))" }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a label; it comes off every card.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The label (id or name).") var label: String
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let label = label
            try await LabelsCommand.change(connection, json: json) { board throws(CorkFailure) in
                try LabelOps.remove(label, on: board)
            } text: { name, _ in "deleted label \(name)" }
        }
    }
}
