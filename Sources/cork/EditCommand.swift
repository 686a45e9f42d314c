import ArgumentParser
import BoardCore
import CorkApp

/// `cork edit CARD [--title T] [--desc D] [--due DATE | --no-due] [--milestone M | --no-milestone]`.
struct EditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit", abstract: "Change a card's title, description, due date or milestone.")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The card.") var card: String
    @Option(help: "A new title.") var title: String?
    @Option(name: [.customLong("desc"), .customLong("description")], help: "A new description.") var desc: String?
    @Option(help: "A new due date: YYYY-MM-DD, today, tomorrow, +3 (days), +2w (weeks) or a weekday (fri).") var due: String?
    @Flag(name: .customLong("no-due"), help: "Clear the due date.") var noDue = false
    @Option(help: "Put the card in this milestone (id or title).") var milestone: String?
    @Flag(name: .customLong("no-milestone"), help: "Take the card out of its milestone.") var noMilestone = false
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let (card, title, desc, due, noDue, milestone, noMilestone) = (card, title, desc, due, noDue, milestone, noMilestone)
        try await CardChange.run(connection, json: json, verb: "edited", describing: true) { board throws(CorkFailure) in
            let found = try CardOps.card(card, on: board)
            let id = try milestone.map { text throws(CorkFailure) in try MilestoneOps.milestone(text, on: board).id }
            return (
                found.id,
                [
                    try CardOps.edit(
                        found, title: title, description: desc, due: due, clearDue: noDue, milestone: id,
                        clearMilestone: noMilestone)
                ]
            )
        }
    }
}
