// cork-swift-bot: a bot built on the BoardClient library that reacts to deltas.
//
//   swift build && export PATH="$PWD/.build/debug:$PATH"
//   corkd invite --user donebot --role bot      # prints an invite URL
//   CORK_URL='cork://…' cork-swift-bot --journal ~/.local/state/donebot.json
//
// What it does, live, for every change anyone makes:
// - a card moved into the last column (DONE) is closed, with a comment saying so;
// - a closed card moved out of it again is reopened;
// - a chat line "@donebot status" (its own user id) is answered with the cards per column.
//
// It keeps a journal (--journal), so when it is killed between sending an op and hearing back, the restarted bot
// resends that op with its original mutation id and the server applies it once.

import BoardClient
import BoardCore
import Foundation

/// Writes one line to stdout at once (print is block-buffered when stdout is a file).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Reads `--url URL` / `$CORK_URL` and `--journal PATH` from the command line.
func arguments() -> (url: String, journal: URL?) {
    var url = ProcessInfo.processInfo.environment["CORK_URL"]
    var journal: URL?
    var rest = CommandLine.arguments.dropFirst()
    while let argument = rest.popFirst() {
        switch argument {
        case "--url": url = rest.popFirst()
        case "--journal": journal = rest.popFirst().map { URL(fileURLWithPath: $0) }
        case "-h", "--help":
            print("usage: cork-swift-bot [--url URL] [--journal FILE]   (or set CORK_URL)")
            exit(0)
        default:
            FileHandle.standardError.write(Data("cork-swift-bot: unknown argument \(argument)\n".utf8))
            exit(2)
        }
    }
    guard let url else {
        FileHandle.standardError.write(Data("cork-swift-bot: give an invite URL with --url or CORK_URL\n".utf8))
        exit(2)
    }
    return (url, journal)
}

/// The ops the bot answers one committed change with.
func reactions(to event: ActivityEvent, me: UserID) -> [Op] {
    let board = event.board
    guard !event.isOwn, let done = board.columns.last else { return [] }
    switch event.op {
    case .moveCard(let id, let column, _, _):
        guard let card = board.cards[id] else { return [] }
        if column == done.id, !card.closed {
            return [
                .closeCard(card: id),
                .addComment(card: id, comment: CommentID("done-\(event.activity.seq)"), text: "closed: it reached \(done.name)"),
            ]
        }
        if column != done.id, card.closed, event.activity.changes["column"]?.old == .string(done.id.rawValue) {
            return [.reopenCard(card: id)]
        }
        return []
    case .chat(let text) where text.contains("@\(me.rawValue) status"):
        let counts = board.columns.map { "\($0.name) \(board.count(in: $0.id))" }.joined(separator: " · ")
        return [.chat(text: counts)]
    default:
        return []
    }
}

let (text, journal) = arguments()
guard let invite = InviteURL(text) else {
    FileHandle.standardError.write(Data("cork-swift-bot: not an invite URL: \(text)\n".utf8))
    exit(2)
}
var configuration = try ClientConfiguration(invite: invite)
configuration.clientName = "cork-swift-bot/0.1.0"
configuration.journal = journal
if configuration.board == nil { configuration.board = "main" }

do {
    try await withClient(configuration) { client in
        // A fresh invite's membership reaches the board within a second or so: allow for it.
        let board = try await client.ready(membershipGrace: .seconds(10))
        let me = await client.user ?? "bot"
        say("cork-swift-bot: following \(board.name) as \(me) at seq \(await client.seq)")
        for await event in client.events {
            switch event {
            case .activity(let activity):
                for op in reactions(to: activity, me: me) {
                    let mut = try await client.submit(op)
                    say("cork-swift-bot: seq \(activity.activity.seq) \(activity.activity.kind) → \(op.kind) (mut \(mut))")
                }
            case .rejected(let rejected):
                say("cork-swift-bot: rejected \(rejected.op.request.kind): \(rejected.reject.code) \(rejected.reject.message)")
            case .connection(let state):
                say("cork-swift-bot: \(state)")
            default:
                continue
            }
        }
    }
} catch let error as ClientError {
    FileHandle.standardError.write(Data("cork-swift-bot: \(error.message)\n".utf8))
    exit(error.isFatal ? 1 : 4)
}
