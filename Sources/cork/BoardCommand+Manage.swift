import ArgumentParser
import BoardClient
import BoardCore
import CorkApp

extension BoardCommand {
    /// `cork board rename NAME`: the wire's `board.rename` (owners only).
    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rename the board (--board picks which; owners only).",
            discussion: "The id stays the same. Exit 3 (forbidden) for a member who is not an owner.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The new display name.") var name: String
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let name = name
            guard !BoardText.plain(name).isEmpty, name.count <= Limits.boardNameMaxCharacters else {
                throw CorkFailure.usage("the name must be 1–\(Limits.boardNameMaxCharacters) characters")
            }
            try await BoardChange.run(
                connection, json: json,
                plan: { board throws(CorkFailure) in BoardChange.Plan(ops: [.renameBoard(name: name)], subject: board.id.rawValue) },
                report: BoardChange.Report(
                    text: { _, before, after in
                        "renamed board \(after.id) \"\(BoardText.plain(before.name))\" → \"\(BoardText.plain(after.name))\""
                    },
                    json: { _, _, after, result in result.name = after.name }))
        }
    }

    /// `cork board remind HOURS|default`: the wire's `board.remind` (owners only).
    struct Remind: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set how long before a card's due day its assignees and watchers are reminded (owners only).",
            discussion: """
                HOURS is 0–720 (0: on the due day itself; 48: from the start of the day two days before); `default` \
                goes back to the server's default, a day ahead. Overdue cards are reminded once they are late, \
                whatever this is. Exit 3 (forbidden) for a member who is not an owner.
                """)
        @OptionGroup var connection: ConnectionOptions
        // Unrecognized words too, so that `-1` is refused for what it is, not taken for an unknown option.
        @Argument(parsing: .allUnrecognized, help: "Hours before the due day (0–720), or `default`.") var hours: [String] = []
        @Flag(help: "Print JSON.") var json = false

        mutating func validate() throws {
            // `--` ends the options as usual (`cork board remind -- -1`).
            hours.removeAll { $0 == "--" }
            guard hours.count == 1, let only = hours.first else {
                throw ValidationError(hours.isEmpty ? "give HOURS (0–720) or `default`" : "give one HOURS, not \(hours.joined(separator: " "))")
            }
            if only.hasPrefix("--") { throw ValidationError("unknown option \(only)") }
        }

        func run() async throws {
            let value = try RemindHours.parse(hours[0])
            try await BoardChange.run(
                connection, json: json,
                plan: { board throws(CorkFailure) in BoardChange.Plan(ops: [.setRemindHours(hours: value)], subject: board.id.rawValue) },
                report: BoardChange.Report(
                    text: { _, _, after in
                        "board \(after.id) reminds " + (after.remindHours.map { "\($0) h before a card's due day" } ?? "a day before a card's due day (the server's default)")
                    },
                    json: { _, _, after, result in
                        result.remindHours = after.remindHours
                        result.remindDefault = after.remindHours == nil ? true : nil
                    }))
        }
    }

    /// `cork board members`: the members with their roles, and who is on the board now.
    struct Members: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the board's members with their roles and who is online.",
            discussion: """
                Owners first, then editors, bots and viewers, each by user id. "online" means a session of theirs is \
                on the board now (the board's presence); one-shot commands like this one are never counted.
                """)
        @OptionGroup var connection: ConnectionOptions
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let json = json
            let session = try connection.session()
            try await session.withBoard { client, board in
                // The presence state follows `subscribed` on the wire: a ping answered means it has been read.
                let online: Set<UserID>?
                do {
                    _ = try await client.connected(timeout: session.timeout)
                    online = Set(await client.presence.values.map(\.user))
                } catch {
                    online = nil
                }
                let rows = MemberList.rows(board, online: online)
                Output.result(CorkJSON.Members(board: board.id, members: rows), json: json, text: MemberList.text(rows))
            }
        }
    }

    /// `cork board archive --yes`: the wire's `board.archive` (owners only).
    struct Archive: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Archive the board for everyone (--board picks which; owners only; needs --yes).",
            discussion: """
                An archived board disappears for every member at once (Protocol.md, "Archived boards"): whoever has \
                it open is told it is gone, and nobody can open it until the server's operator brings it back with \
                `corkd board unarchive BOARD` (the data is kept as it was). Exit 3 for a member who is not an owner \
                (or a board you do not belong to), 2 without --yes.
                """)
        @OptionGroup var connection: ConnectionOptions
        @Flag(help: "Archive it (asked for because it hides the board from every member).") var yes = false
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            guard yes else { throw CorkFailure.usage("archiving hides the board from every member: add --yes") }
            let session = try connection.session()
            let board = session.target.board
            try await session.withConnection { client, _ in
                do {
                    try await client.archiveBoard(board)
                } catch let error as ClientError {
                    // The server refused the request itself (not the owner, no such board): exit 3, like a reject.
                    if let refusal = error.server, [.forbidden, .notFound, .badRequest].contains(refusal.code) {
                        throw CorkFailure(.rejected, "\(refusal.code.rawValue): \(refusal.message)")
                    }
                    throw error
                }
            }
            Output.result(
                CorkJSON.ArchivedBoard(board: board), json: json,
                text: "archived board \(board) for everyone; on the server `corkd board unarchive \(board)` brings it back\n")
        }
    }
}
