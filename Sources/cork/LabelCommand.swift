import ArgumentParser
import BoardCore
import CorkApp

/// `cork label CARD +L -L …`: `-L` looks like an option, so everything after CARD is taken as is.
struct LabelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "label", abstract: "Put labels on a card (+NAME or NAME) or take them off (-NAME).",
        discussion: """
            Everything after CARD is a label change except --json; other options go before CARD. Missing labels are \
            created. A label whose name starts with + or - takes the sign before it too: +-wip adds the label -wip, \
            --wip takes it off.
            """)

    @OptionGroup var connection: ConnectionOptions
    @Flag(help: "Print JSON.") var json = false
    @Argument(help: "The card.") var card: String
    @Argument(parsing: .captureForPassthrough, help: ArgumentHelp("+NAME to add, -NAME to remove.", valueName: "±label"))
    var changes: [String] = []

    /// The options of `cork label` that may be written after CARD by mistake: anything else that starts with `--`
    /// is `-` and a label named `-…`.
    static let options = ["--url", "--board", "--help"]

    func validate() throws {
        let misplaced = changes.first { change in
            Self.options.contains { change == $0 || change.hasPrefix($0 + "=") }
        }
        if let option = misplaced {
            throw ValidationError("\(option): options go before CARD; after it come only +NAME, -NAME and --json")
        }
    }

    func run() async throws {
        let edit = try LabelEdit(arguments: changes.filter { $0 != "--json" })
        let (card, json) = (card, json || changes.contains("--json"))
        try await CardChange.run(connection, json: json, verb: "labelled") { board throws(CorkFailure) in
            let found = try CardOps.card(card, on: board)
            return (found.id, try edit.ops(for: found, on: board))
        }
    }
}
