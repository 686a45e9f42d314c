import ArgumentParser
import BoardClient
import BoardCore
import CorkApp
import Foundation

/// `cork notify`: where and when unread inbox entries are mailed to you.
struct NotifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notify",
        abstract: "Show or change how unread inbox entries are mailed to you.",
        discussion: """
            An entry still unread after the delay (default 10 minutes) is mailed, with the others waiting, in one \
            message. Levels: all (every entry), mentions (mentions, assignments and due dates; the default), none. \
            --board B --level L sets one board's level (--board B --level default removes it). --mail off removes \
            your address: nothing is mailed. Prints the settings after the change.
            """)

    @OptionGroup var connection: ConnectionOptions
    @Option(help: "Your mail address.") var email: String?
    @Option(help: "off: remove your address and mail nothing.") var mail: String?
    @Option(help: "all, mentions or none (with --board: that board's; default removes it).") var level: String?
    @Option(parsing: .unconditional, help: "Minutes an entry stays unread before it is mailed (1–1440).") var delay: Int?
    @Flag(help: "Print JSON.") var json = false

    func validate() throws {
        if let mail, mail != "off" { throw ValidationError("--mail takes off") }
        if mail != nil, email != nil { throw ValidationError("give --email or --mail off, not both") }
        if let email, let problem = NotifySettings.addressProblem(email) { throw ValidationError(problem) }
        if let delay, !(1...1440).contains(delay) { throw ValidationError("--delay must be 1–1440 minutes") }
        if let level, NotifySettings.Level(rawValue: level) == nil, !(level == "default" && connection.board != nil) {
            throw ValidationError("--level must be all, mentions or none" + (connection.board != nil ? " (or default)" : ""))
        }
    }

    func run() async throws {
        let address: String? = mail == "off" ? "" : email
        let board = connection.board.map { BoardID($0) }
        let levelText = level
        let delayMs = delay.map { Int64($0) * 60_000 }
        let json = self.json
        let session = try connection.session()
        try await session.withConnection { client, _ in
            var overall: NotifySettings.Level?
            var boardLevel: Clearable<NotifySettings.Level>?
            if let levelText {
                if board != nil {
                    boardLevel = levelText == "default" ? .clear : NotifySettings.Level(rawValue: levelText).map { .set($0) }
                } else {
                    overall = NotifySettings.Level(rawValue: levelText)
                }
            }
            let settings = try await client.notifySettings(
                email: address, level: overall, delayMs: delayMs, board: boardLevel == nil ? nil : board,
                boardLevel: boardLevel)
            if json {
                Output.line(String(decoding: try JSONEncoder().encode(settings), as: UTF8.self))
            } else {
                var lines = [
                    "mail: " + (settings.email ?? "off (no address; cork notify --email ADDRESS)"),
                    "level: \(settings.level.rawValue)",
                    "delay: \(settings.delayMs / 60_000) min" + (settings.delayMs % 60_000 == 0 ? "" : " \(settings.delayMs % 60_000 / 1000) s"),
                ]
                for (id, level) in settings.boards.sorted(by: { $0.key < $1.key }) { lines.append("board \(id): \(level.rawValue)") }
                Output.line(lines.joined(separator: "\n"))
            }
        }
    }
}
