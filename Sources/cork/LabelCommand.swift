import ArgumentParser
import BoardCore
import CorkApp

/// `cork label CARD +L -L …`: `-L` looks like an option, so everything after CARD is taken as is.
struct LabelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "label", abstract: "Put labels on a card (+NAME or NAME) or take them off (-NAME).",
        discussion: """
            Everything after CARD is a label change except --json; other options go before CARD. Missing labels are \
            created.
            """)

    @OptionGroup var connection: ConnectionOptions
    @Flag(help: "Print JSON.") var json = false
    @Argument(help: "The card.") var card: String
    @Argument(parsing: .captureForPassthrough, help: ArgumentHelp("+NAME to add, -NAME to remove.", valueName: "±label"))
    var changes: [String] = []

    func validate() throws {
        if let option = changes.first(where: { $0.hasPrefix("--") && $0 != "--json" }) {
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
