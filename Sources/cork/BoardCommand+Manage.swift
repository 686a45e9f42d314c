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

    /// `cork board archive`: explains that archiving is an operator action.
    struct Archive: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Archiving a board is an operator action: this says how (exit 3).",
            discussion: """
                An archived board disappears for every member at once (Protocol.md, "Archived boards"), so it is \
                done on the server by its operator: `corkd board archive BOARD` (the data is kept; `corkd board \
                unarchive BOARD` brings it back as it was). cork sends nothing and exits 3, as for a refused op.
                """)
        @OptionGroup var connection: ConnectionOptions
        @Flag(help: "Print JSON (the same refusal: exit 3, the message on stderr).") var json = false

        func run() async throws {
            let board = (try? connection.session().target.board.rawValue) ?? connection.board ?? "BOARD"
            throw CorkFailure(
                .rejected,
                "forbidden: archiving a board is an operator action; on the server run `corkd board archive \(board)` "
                    + "(its data is kept, and `corkd board unarchive \(board)` brings it back)")
        }
    }
}
