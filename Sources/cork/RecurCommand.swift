import ArgumentParser
import BoardCore
import CorkApp

/// `cork recur CARD --every day|weekday|week|month [--on mon,thu] [--day N] | --after-done N | --off`.
struct RecurCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recur", abstract: "Make a card come back once it is done (or stop it with --off).",
        discussion: """
            When a recurring card is done (closed or moved to the last column), the server adds its next occurrence \
            to the first column: the same title, description, labels, assignees, milestone and checklist (unticked), \
            due on the next day of the schedule after its due day (or after the day it was done), or --after-done N \
            days after it was done. Each occurrence is added once, also across restarts and nodes.
            """)

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The card.") var card: String
    @Option(help: "day, weekday, week or month.") var every: String?
    @Option(help: "With --every week: the days, e.g. mon,thu.") var on: String?
    @Option(parsing: .unconditional, help: "With --every month: the day of the month (1–31).") var day: Int?
    @Option(name: .customLong("after-done"), parsing: .unconditional, help: "Come back this many days after it is done (1–365).") var afterDone: Int?
    @Flag(help: "Stop it recurring.") var off = false
    @Flag(help: "Print JSON.") var json = false

    func validate() throws {
        _ = try rule()
    }

    /// The rule the options give (nil with --off).
    func rule() throws -> Recurrence? {
        if off {
            guard every == nil, afterDone == nil, on == nil, day == nil else { throw ValidationError("--off takes no other option") }
            return nil
        }
        var rule = Recurrence(afterDoneDays: afterDone)
        if let every {
            guard let value = Recurrence.Every(rawValue: every) else { throw ValidationError("--every must be day, weekday, week or month") }
            rule.every = value
        }
        // The days once each, in the week's order (mon,THU,mon is mon, thu).
        rule.days = on.map { Recurrence.days($0.split(separator: ",").map(String.init)) }
        rule.day = day
        if on != nil, rule.every != .week { throw ValidationError("--on goes with --every week (the days of the week)") }
        if day != nil, rule.every != .month { throw ValidationError("--day goes with --every month (the day of the month)") }
        if let days = rule.days, let unknown = days.first(where: { !Recurrence.dayNames.contains($0) }) {
            throw ValidationError("--on takes days of the week (mon, tue, wed, thu, fri, sat, sun), not \"\(unknown)\"")
        }
        if let problem = rule.problem {
            throw ValidationError(problem.replacingOccurrences(of: "after_done_days", with: "--after-done")
                .replacingOccurrences(of: "every week needs days", with: "--every week needs --on")
                .replacingOccurrences(of: "every month needs day", with: "--every month needs --day")
                .replacingOccurrences(of: "give every", with: "give --every"))
        }
        return rule
    }

    func run() async throws {
        let rule = try self.rule()
        let card = self.card
        try await CardChange.run(
            connection, json: json, verb: rule == nil ? "stopped recurring" : "made recurring", describing: true
        ) { board throws(CorkFailure) in
            let found = try CardOps.card(card, on: board)
            return (found.id, [.setRecurrence(card: found.id, recurrence: rule)])
        }
    }
}
