import ArgumentParser
import BoardCore
import CorkApp

/// `cork member add|remove`: the board's members (owners only).
struct MemberCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "member", abstract: "Give a user a role on the board, or remove a member (owners only).",
        discussion: """
            `cork board members` lists the members. Inviting a new person (making their account and token) stays \
            an operator action: `corkd invite --user NAME --role ROLE` on the server prints their invite URL. \
            `cork member add` gives a role on this board to a user id; the server does not check that the account \
            exists, so a typo makes a member nobody can log in as (`cork member remove` takes it back).
            """,
        subcommands: [Add.self, Remove.self])

    /// The JSON and text report of a member command: the members after the change.
    static func report(_ text: @escaping @Sendable (_ user: String, _ board: Board) -> String) -> BoardChange.Report {
        BoardChange.Report(
            text: { user, _, after in text(user, after) },
            json: { _, _, after, result in result.members = MemberList.rows(after, online: nil) })
    }

    /// `cork member add USER --role ROLE [--name NAME]`.
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give a user a role on the board (adding them, or changing their role).",
            discussion: "Roles: owner, editor, viewer, bot. Exit 3 (forbidden) unless you own the board.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The user id (with or without @).") var user: String
        @Option(help: "owner, editor, viewer or bot.") var role: String
        @Option(help: "A display name.") var name: String?
        @Flag(help: "Print JSON.") var json = false

        func validate() throws {
            guard Role(rawValue: role.lowercased()) != nil else {
                throw ValidationError("--role must be owner, editor, viewer or bot, not \(role)")
            }
            guard UserID(validating: String(user.drop { $0 == "@" })) != nil else {
                throw ValidationError("\(user) is not a user id (1–64 of A–Z a–z 0–9 _ . -)")
            }
        }

        func run() async throws {
            let role = Role(rawValue: role.lowercased()) ?? .viewer
            let user = UserID(String(user.drop { $0 == "@" }))
            let name = name
            try await BoardChange.run(
                connection, json: json,
                plan: { _ throws(CorkFailure) in
                    BoardChange.Plan(ops: [.setMember(user: user, role: role, name: name)], subject: user.rawValue)
                },
                report: MemberCommand.report { user, board in "\(user) is \(role) on \(board.id)" })
        }
    }

    /// `cork member remove USER`.
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a member from the board (their assignments are dropped).",
            discussion: "Exit 5 when the user is not a member, 3 (forbidden) unless you own the board.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The member (user id, with or without @, or display name).") var user: String
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let user = user
            try await BoardChange.run(
                connection, json: json,
                plan: { board throws(CorkFailure) in
                    let member = try CardOps.member(user, on: board)
                    return BoardChange.Plan(ops: [.removeMember(user: member.id)], subject: member.id.rawValue)
                },
                report: MemberCommand.report { user, board in "removed \(user) from \(board.id)" })
        }
    }
}
