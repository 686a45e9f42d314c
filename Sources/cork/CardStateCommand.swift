import ArgumentParser
import BoardCore
import CorkApp

/// `cork close|reopen|archive|restore CARD`: one op on one card.
protocol CardStateCommand: AsyncParsableCommand {
    var connection: ConnectionOptions { get }
    var card: String { get }
    var json: Bool { get }
    /// The past tense for the output.
    static var verb: String { get }
    /// The op for the card.
    static func op(_ card: CardID) -> Op
}

extension CardStateCommand {
    func run() async throws {
        let card = card
        try await CardChange.run(connection, json: json, verb: Self.verb) { board throws(CorkFailure) in
            let found = try CardOps.card(card, on: board)
            return (found.id, [Self.op(found.id)])
        }
    }
}

/// `cork close CARD`.
struct CloseCommand: CardStateCommand {
    static let configuration = CommandConfiguration(commandName: "close", abstract: "Close a card.")
    static let verb = "closed"
    static func op(_ card: CardID) -> Op { .closeCard(card: card) }
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The card.") var card: String
    @Flag(help: "Print JSON.") var json = false
}

/// `cork reopen CARD`.
struct ReopenCommand: CardStateCommand {
    static let configuration = CommandConfiguration(commandName: "reopen", abstract: "Reopen a closed card.")
    static let verb = "reopened"
    static func op(_ card: CardID) -> Op { .reopenCard(card: card) }
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The card.") var card: String
    @Flag(help: "Print JSON.") var json = false
}

/// `cork archive CARD` (what "delete" does; `cork restore` brings it back); `cork archive list` is in
/// ArchiveListCommand.
struct ArchiveCommand: CardStateCommand {
    static let configuration = CommandConfiguration(
        commandName: "card", abstract: "Archive (delete) a card; restorable (the default: cork archive CARD).")
    static let verb = "archived"
    static func op(_ card: CardID) -> Op { .archiveCard(card: card) }
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The card.") var card: String
    @Flag(help: "Print JSON.") var json = false
}

/// `cork restore CARD`.
struct RestoreCommand: CardStateCommand {
    static let configuration = CommandConfiguration(commandName: "restore", abstract: "Bring an archived card back.")
    static let verb = "restored"
    static func op(_ card: CardID) -> Op { .restoreCard(card: card) }
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The card.") var card: String
    @Flag(help: "Print JSON.") var json = false
}
