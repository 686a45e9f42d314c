import ArgumentParser
import BoardClient
import BoardCore
import CorkApp

/// `cork watch`: every change, chat and presence event until SIGINT or SIGTERM.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch", abstract: "Print every change, chat message and presence event as it happens.",
        discussion: """
            With --json, one JSON object per line with type (delta, chat, presence, presence.left, presence.state) \
            and board; a change or chat line adds activity (the record: seq, at, actor, kind, card, changes, text), \
            number (its card's number) and own (true when this client, its user and client id, made it). Connection \
            changes go to stderr; the client reconnects and resumes by itself. SIGINT or SIGTERM ends it with exit 0. \
            It ends with exit 5 when the board stops being served to this user (the user was removed from it, or it \
            was archived), and with exit 4 when the token is revoked or expires while it runs.
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
            let ended = await withTaskGroup(of: CorkFailure?.self) { group in
                group.addTask {
                    _ = await Signals.termination()
                    return nil
                }
                group.addTask { await follow(client.events, board: board, json: json) }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first
            }
            if let ended { throw ended }
            // The events end when the client stops for good: a revoked or expired token is exit 4.
            if case .stopped(let error?) = await client.state { throw CorkFailure(error) }
        }
    }
}

/// Prints each event of `events` until the stream ends or the task is cancelled; returns why the board is no longer
/// followed when the server stopped serving it to this user.
private func follow(_ events: AsyncStream<ClientEvent>, board: Board, json: Bool) async -> CorkFailure? {
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
        case .connection(.stopped(_?)):
            // Said once, as the exit's error line (a revoked token: exit 4).
            break
        case .connection(let state):
            Output.standardError("cork: \(WatchLine.text(state))\n")
        case .serverError(let error) where error.code == .notFound && error.board == board.id:
            // Removed from the board, or the board archived: nothing more will come (Protocol.md, "Roles").
            return CorkFailure(.notFound, "\(error.code.rawValue): \(error.message) (no longer following \(board.id))")
        case .serverError(let error):
            Output.standardError("cork: server: \(error.code.rawValue): \(error.message)\n")
        case .rejected, .inbox:
            // The user's inbox (any board) is `cork inbox`'s, not this board's stream.
            break
        }
    }
    return nil
}
