import ArgumentParser
import BoardCore
import CorkApp

/// `cork block CARD --by OTHER…`: CARD waits for OTHER (a card blocked by an open card cannot enter an in-progress
/// column such as DOING, unless moved with `cork move --force REASON`).
struct BlockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "block", abstract: "Mark a card as blocked by other cards (or remove that with --remove).")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The card that waits.") var card: String
    @Option(name: .customLong("by"), help: "The card it waits for; repeatable.") var by: [String] = []
    @Flag(help: "Remove the dependency instead.") var remove = false
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        try await Self.change(connection, card: card, by: by, remove: remove, json: json)
    }

    static func change(_ connection: ConnectionOptions, card: String, by: [String], remove: Bool, json: Bool) async throws {
        try await CardChange.run(connection, json: json, verb: remove ? "unblocked" : "blocked") { board throws(CorkFailure) in
            try CardOps.block(card, by: by, remove: remove, on: board)
        }
    }
}

/// `cork unblock CARD --by OTHER…`: `cork block --remove`.
struct UnblockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "unblock", abstract: "Remove a card's dependency on other cards.")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The card that waits.") var card: String
    @Option(name: .customLong("by"), help: "The card it no longer waits for; repeatable.") var by: [String] = []
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        try await BlockCommand.change(connection, card: card, by: by, remove: true, json: json)
    }
}
