import ArgumentParser
import BoardCore
import CorkApp

/// `cork assign CARD USER [--remove]`.
struct AssignCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "assign", abstract: "Assign a member to a card (or unassign with --remove).")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The card.") var card: String
    @Argument(help: "The member (user id, @user or display name).") var user: String
    @Flag(help: "Unassign instead.") var remove = false
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        try await Self.change(connection, card: card, user: user, remove: remove, json: json)
    }

    static func change(_ connection: ConnectionOptions, card: String, user: String, remove: Bool, json: Bool) async throws {
        try await CardChange.run(connection, json: json, verb: remove ? "unassigned" : "assigned") { board throws(CorkFailure) in
            let found = try CardOps.card(card, on: board)
            let member = try CardOps.member(user, on: board)
            return (found.id, [remove ? .unassign(card: found.id, user: member.id) : .assign(card: found.id, user: member.id)])
        }
    }
}

/// `cork unassign CARD USER`: `cork assign --remove`.
struct UnassignCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "unassign", abstract: "Unassign a member from a card.")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The card.") var card: String
    @Argument(help: "The member.") var user: String
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        try await AssignCommand.change(connection, card: card, user: user, remove: true, json: json)
    }
}
