import ArgumentParser
import BoardCore
import BoardServer
import BoardStore
import BoardTransport
import BoardWire
import Foundation

/// `corkd invite`: users, their tokens and board memberships, printed as invite URLs.
struct Invite: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print an invite URL for a user (or one per line of --users-file), creating the user and the membership.",
        discussion: """
            Works whether or not the server runs: with it running, the command returns once the server has applied \
            the membership (at most --wait seconds); without, it applies it to the store itself. A board that does \
            not exist (or is archived) is exit 5 and changes nothing.

            --users-file FILE (- for stdin): one invite per line, USER [ROLE [BOARD[,BOARD...]]]; ROLE and BOARD \
            default to --role and --board, # starts a comment. Every line is checked before anything is changed. \
            One URL per line is printed, in order (with --json, one object per line).
            """)

    @OptionGroup var data: DataOptions
    @OptionGroup var admin: AdminOptions

    @Option(help: "The user name.")
    var user: String?

    @Option(name: .customLong("users-file"), help: "A file of invites, one per line (- reads stdin).")
    var usersFile: String?

    @Option(help: "owner, editor, viewer or bot.")
    var role: String = "editor"

    @Option(help: "The board.")
    var board: String = "main"

    @Option(help: "The host the URL names (default: the one the server advertises, from listen.json).")
    var host: String?

    @Option(help: "The port the URL names (default: where the server last listened).")
    var port: Int?

    @Option(help: "The certificate the server serves, when it was started with --cert (default: the one it last served, from listen.json).")
    var cert: String?

    @Option(help: "Accepted and ignored, so that the server's --cert/--key can be repeated.")
    var key: String?

    /// One printed invite.
    struct Printed: Encodable {
        var user: String
        var role: String
        var boards: [String]
        var url: String
        /// The same invite for a browser, when the server runs its web page.
        var webURL: String?

        enum CodingKeys: String, CodingKey {
            case user, role, boards, url
            case webURL = "web_url"
        }
    }

    func run() async throws {
        let entries = try self.entries()
        let administration = try await admin.open(data)
        let fingerprint: Fingerprint
        do {
            fingerprint = try ServerCertificate.fingerprintForURLs(certificatePath: cert, directory: data.url)
        } catch {
            await administration.close()
            throw CorkdExit.usage(error.message)
        }
        // Every board must exist before anything changes.
        let records: [BoardID: BoardRecord]
        do {
            records = Dictionary(uniqueKeysWithValues: try await administration.store.boards().map { ($0.id, $0) })
        } catch {
            await administration.close()
            throw CorkdExit.fail(AdminFailure(.failed, "the store: \(error.message)"))
        }
        for entry in entries {
            for board in entry.boards where records[board]?.archived != false {
                await administration.close()
                let failure = AdminFailure.noBoard(board, archived: records[board]?.archived ?? false)
                throw CorkdExit.fail(AdminFailure(failure.code, (usersFile == nil ? "" : "line \(entry.line): ") + failure.message))
            }
        }
        let tokens: [String]
        do {
            tokens = try await administration.store.inviteUsers(
                entries.map(\.user), bots: Set(entries.filter { $0.role == .bot }.map(\.user)), expiresAt: nil,
                now: WallClock().now())
        } catch {
            await administration.close()
            throw CorkdExit.fail(AdminFailure(.failed, "the store: \(error.message)"))
        }
        let commands = entries.flatMap { entry in entry.boards.map { AdminCommand.addMember(board: $0, user: entry.user, role: entry.role) } }
        let failures = try await admin.apply(commands, with: administration)
        // A refused invite prints no URL: its token must not stay valid.
        var refused: [String] = []
        var index = 0
        for (entry, token) in zip(entries, tokens) {
            if failures[index..<index + entry.boards.count].contains(where: { $0 != nil }) { refused.append(token) }
            index += entry.boards.count
        }
        do {
            try await administration.store.withdrawTokens(refused)
        } catch {
            Console.error("corkd: the tokens of the refused invites could not be withdrawn (\(error.message)); run corkd revoke for those users\n")
        }
        await administration.close()

        let listen = ListenRecord.read(in: data.url)
        var output = ""
        var next = 0
        var reported: [AdminFailure?] = []
        for (entry, token) in zip(entries, tokens) {
            let mine = failures[next..<next + entry.boards.count]
            next += entry.boards.count
            if let failure = mine.compactMap({ $0 }).first {
                Console.error("corkd: \(usersFile == nil ? "" : "line \(entry.line): ")\(entry.user): \(failure.message)\n")
                reported.append(failure)
                continue
            }
            let url = InviteURL(
                host: host ?? listen?.host ?? "127.0.0.1", port: port ?? listen?.advertisedPort ?? InviteURL.defaultPort,
                board: entry.boards[0], token: token, fingerprint: fingerprint.description)
            let web = listen?.webURL.map { url.webLink(base: $0) }
            if admin.json {
                output += CorkdJSON.line(
                    Printed(
                        user: entry.user.rawValue, role: entry.role.rawValue, boards: entry.boards.map(\.rawValue),
                        url: url.description, webURL: web))
            } else {
                output += "\(url)\n"
                // stdout stays one `cork join` URL per line for scripts; the browser link is for the person.
                if let web { Console.error("\(entry.user) in a browser: \(web)\n") }
            }
        }
        try Console.result(output)
        if let exit = CorkdExit.worst(reported) { throw exit }
    }

    /// The invites asked for: `--user`, or every line of `--users-file`.
    func entries() throws -> [UsersFile.Entry] {
        guard let role = Role(rawValue: self.role) else { throw CorkdExit.usage("--role must be owner, editor, viewer or bot") }
        guard let board = BoardID(validating: self.board) else { throw CorkdExit.usage("--board \(self.board) is not a board id") }
        switch (user, usersFile) {
        case (let name?, nil):
            guard let user = UserID(validating: name) else { throw CorkdExit.usage("--user must be 1–64 of A–Z a–z 0–9 _ . -") }
            return [UsersFile.Entry(line: 0, user: user, role: role, boards: [board])]
        case (nil, let path?):
            let text: String
            do {
                text = path == "-"
                    ? String(decoding: try FileHandle.standardInput.readToEnd() ?? Data(), as: UTF8.self)
                    : try String(contentsOfFile: path, encoding: .utf8)
            } catch {
                throw CorkdExit.usage("cannot read \(path): \(error.localizedDescription)")
            }
            do {
                let entries = try UsersFile.parse(text, role: role, board: board)
                guard !entries.isEmpty else { throw CorkdExit.usage("\(path) has no invites") }
                return entries
            } catch let error as UsersFile.ParseError {
                throw CorkdExit.usage("\(path) \(error); nothing was changed")
            }
        default:
            throw CorkdExit.usage("give --user NAME or --users-file FILE (one of them)")
        }
    }
}
