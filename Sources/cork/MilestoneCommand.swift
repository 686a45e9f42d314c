import ArgumentParser
import BoardCore
import CorkApp

/// `cork milestone create|edit|close|reopen|delete|list`: the board's milestones.
struct MilestoneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "milestone", abstract: "Create, edit, close, reopen, delete or list milestones.",
        discussion: """
            A milestone is named by its id or its title in any case. Put a card in one with `cork add … --milestone \
            M` or `cork edit CARD --milestone M` (`--no-milestone` takes it out); find its cards with `cork search \
            milestone:M` (`no:milestone` finds cards in none). Progress counts a milestone's unarchived cards that \
            are closed or in the last column, of all its unarchived cards.
            """,
        subcommands: [List.self, Create.self, Edit.self, Close.self, Reopen.self, Delete.self])

    /// The report of a command on a milestone: `VERB milestone ID "title" 3/5 done …`, and its row in JSON (as it
    /// was before, when it is gone after).
    static func report(verb: String) -> BoardChange.Report {
        @Sendable func milestoneRow(_ id: String, _ before: Board, _ after: Board) -> CorkJSON.MilestoneRow? {
            for board in [after, before] {
                guard let found = board.milestone(MilestoneID(id)) else { continue }
                return MilestoneOps.row(found, on: board, today: today)
            }
            return nil
        }
        return BoardChange.Report(
            text: { id, before, after in
                guard let row = milestoneRow(id, before, after) else { return "\(verb) milestone \(id)" }
                return "\(verb) milestone " + MilestoneOps.text([row]).dropLast()
            },
            json: { id, before, after, result in result.milestone = milestoneRow(id, before, after) })
    }

    /// The plan of one milestone op: the op and the milestone it is about.
    static func plan(_ op: Op) -> BoardChange.Plan {
        var subject = ""
        switch op {
        case .createMilestone(let id, _, _, _), .updateMilestone(let id, _, _, _), .closeMilestone(let id),
            .reopenMilestone(let id), .deleteMilestone(let id):
            subject = id.rawValue
        default: break
        }
        return BoardChange.Plan(ops: [op], subject: subject)
    }

    /// `cork milestone list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List milestones with progress (done/total cards) and due date; overdue ones are marked.")
        @OptionGroup var connection: ConnectionOptions
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let json = json
            let session = try connection.session()
            try await session.withBoard { _, board in
                let rows = MilestoneOps.rows(board, today: today)
                Output.result(CorkJSON.Milestones(board: board.id, milestones: rows), json: json, text: MilestoneOps.text(rows))
            }
        }
    }

    /// `cork milestone create TITLE [--due DATE] [--desc D] [--id ID]`.
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a milestone.",
            discussion: "The id defaults to the title in lower case with dashes (Beta launch → beta-launch).")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The title.") var title: String
        @Option(help: "The due date: YYYY-MM-DD, today, tomorrow, +3 (days), +2w (weeks) or a weekday (fri).") var due: String?
        @Option(name: [.customLong("desc"), .customLong("description")], help: "The description.") var desc: String?
        @Option(help: "Its id (default: made from the title).") var id: String?
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let (title, due, desc, id) = (title, due, desc, id)
            try await BoardChange.run(
                connection, json: json,
                plan: { board throws(CorkFailure) in
                    MilestoneCommand.plan(try MilestoneOps.create(title: title, description: desc, due: due, id: id, on: board))
                },
                report: MilestoneCommand.report(verb: "created"))
        }
    }

    /// `cork milestone edit M [--title T] [--desc D] [--due DATE | --no-due]`.
    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change a milestone's title, description or due date.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The milestone (id or title).") var milestone: String
        @Option(help: "A new title.") var title: String?
        @Option(name: [.customLong("desc"), .customLong("description")], help: "A new description.") var desc: String?
        @Option(help: "A new due date: YYYY-MM-DD, today, tomorrow, +3 (days), +2w (weeks) or a weekday (fri).") var due: String?
        @Flag(name: .customLong("no-due"), help: "Clear the due date.") var noDue = false
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let (milestone, title, desc, due, noDue) = (milestone, title, desc, due, noDue)
            try await BoardChange.run(
                connection, json: json,
                plan: { board throws(CorkFailure) in
                    MilestoneCommand.plan(
                        try MilestoneOps.edit(milestone, title: title, description: desc, due: due, clearDue: noDue, on: board))
                },
                report: MilestoneCommand.report(verb: "edited"))
        }
    }

    /// `cork milestone close M`.
    struct Close: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Close a milestone.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The milestone (id or title).") var milestone: String
        @Flag(help: "Print JSON.") var json = false
        func run() async throws {
            try await MilestoneCommand.change(milestone, connection: connection, json: json, verb: "closed") { .closeMilestone(milestone: $0) }
        }
    }

    /// `cork milestone reopen M`.
    struct Reopen: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Reopen a closed milestone.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The milestone (id or title).") var milestone: String
        @Flag(help: "Print JSON.") var json = false
        func run() async throws {
            try await MilestoneCommand.change(milestone, connection: connection, json: json, verb: "reopened") { .reopenMilestone(milestone: $0) }
        }
    }

    /// `cork milestone delete M`.
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a milestone; its cards leave it (the cards stay). It cannot be undone.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The milestone (id or title).") var milestone: String
        @Flag(help: "Print JSON.") var json = false
        func run() async throws {
            try await MilestoneCommand.change(milestone, connection: connection, json: json, verb: "deleted") { .deleteMilestone(milestone: $0) }
        }
    }

    /// Runs the one op `make` gives for the milestone `reference` names.
    static func change(
        _ reference: String, connection: ConnectionOptions, json: Bool, verb: String,
        _ make: @escaping @Sendable (MilestoneID) -> Op
    ) async throws {
        try await BoardChange.run(
            connection, json: json,
            plan: { board throws(CorkFailure) in plan(make(try MilestoneOps.milestone(reference, on: board).id)) },
            report: report(verb: verb))
    }
}
