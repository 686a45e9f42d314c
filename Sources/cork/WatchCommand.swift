import ArgumentParser
import BoardClient
import BoardCore
import CorkApp

/// `cork watch`: every change, chat and presence event until SIGINT or SIGTERM.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch", abstract: "Print every change, chat message and presence event as it happens.",
        discussion: """
            With --json, one JSON object per line with type (delta, chat, presence, presence.left, presence.state), \
            and for changes the activity record: seq, at, actor, kind, card, number, changes, text. Connection \
            changes go to stderr; the client reconnects and resumes by itself. SIGINT or SIGTERM ends it with exit 0.
            """)

    @OptionGroup var connection: ConnectionOptions
    @Flag(help: "Print JSON lines.") var json = false

    func run() async throws {
        Signals.catchTermination()
        var session = try connection.session()
        session.oneShot = false
        let json = json
        try await session.withBoard { client, board in
            Output.standardError("cork: watching \(board.id) from seq \(board.seq)\n")
            await withTaskGroup(of: Void.self) { group in
                group.addTask { _ = await Signals.termination() }
                group.addTask { await follow(client.events, board: board, json: json) }
                await group.next()
                group.cancelAll()
            }
        }
    }
}

/// Prints each event of `events` until the stream ends or the task is cancelled.
private func follow(_ events: AsyncStream<ClientEvent>, board: Board, json: Bool) async {
    var last = board
    for await event in events {
        switch event {
        case .activity(let activity):
            Output.line(json ? WatchLine.json(activity) : WatchLine.text(activity, before: last))
            last = activity.board
        case .presence(let presence):
            if json {
                Output.line(WatchLine.json(presence, board: last.id))
            } else if let line = WatchLine.text(presence, board: last) {
                Output.line(line)
            }
        case .board(let update):
            if update.cause == .snapshot, update.board.seq != last.seq {
                Output.standardError("cork: reloaded \(update.board.id) at seq \(update.board.seq)\n")
            }
            if update.cause == .snapshot { last = update.board }
        case .connection(let state):
            Output.standardError("cork: \(WatchLine.text(state))\n")
        case .rejected, .serverError:
            break
        }
    }
}
