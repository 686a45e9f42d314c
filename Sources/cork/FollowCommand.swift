import ArgumentParser
import BoardCore
import CorkApp

/// `cork follow CARD [--stop]`: watch a card (its comments, moves and unblocking reach your inbox).
struct FollowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "follow",
        abstract: "Watch a card: its comments, moves and unblocking reach your inbox (--stop to stop).",
        discussion: "You watch the cards you created or are assigned to anyway; this adds any other card.")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The card.") var card: String
    @Flag(help: "Stop watching it.") var stop = false
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let (card, stop) = (card, stop)
        try await CardChange.run(connection, json: json, verb: stop ? "stopped watching" : "watching") { board throws(CorkFailure) in
            let found = try CardOps.card(card, on: board)
            return (found.id, [stop ? .unwatchCard(card: found.id) : .watchCard(card: found.id)])
        }
    }
}
