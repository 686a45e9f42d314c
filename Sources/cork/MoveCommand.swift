import ArgumentParser
import BoardCore
import CorkApp

/// `cork move CARD COLUMN [--after CARD | --before CARD | --top | --bottom]`.
struct MoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "move", abstract: "Move a card to a column (the bottom, unless told otherwise).")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The card.") var card: String
    @Argument(help: "The column (id or name).") var column: String
    @Option(help: "Put it right after this card.") var after: String?
    @Option(help: "Put it right before this card.") var before: String?
    @Flag(help: "Put it at the top.") var top = false
    @Flag(help: "Put it at the bottom (the default).") var bottom = false
    @Option(
        help: "Move a blocked card into an in-progress column anyway (editors and owners); the reason goes in the activity.")
    var force: String?
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let (card, column, after, before, top, bottom, force) = (card, column, after, before, top, bottom, force)
        do {
            try await CardChange.run(connection, json: json, verb: "moved") { board throws(CorkFailure) in
                let op = try CardOps.move(card, to: column, placement: { board throws(CorkFailure) in
                    try CardOps.placement(after: after, before: before, top: top, bottom: bottom, on: board)
                }, force: force, on: board)
                return (op.card!, [op])
            }
        } catch var failure as CorkFailure
            where failure.reject?.code == .rejected(.blocked) && force == nil && failure.message.contains("move it with a reason")
        {
            // The refusal says a reason lets it through (to owners and editors); here is how to give one.
            failure.message += " (cork move \(card) \(column) --force REASON)"
            throw failure
        }
    }
}
