import ArgumentParser
import BoardClient
import BoardCore
import CorkApp

/// `cork inbox`: the user's inbox, newest first: mentions, assignments, and comments, moves and unblocks on the
/// cards they watch, on any of their boards.
struct InboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inbox",
        abstract: "Show your inbox, newest first: mentions, assignments, and changes to the cards you watch, on any board.",
        discussion: """
            One line per entry: its id, • when unread, the time (UTC), and what happened, naming the card as \
            BOARD #N (its number as the board connected to, --board else the URL's, has it, or as the server's \
            text gives it). When more \
            entries are older than the last one listed, a last line says so and gives the --before ID that lists \
            them (with --json, "more" says so: list again with --before the smallest id). --mark-read marks the \
            entries listed read after printing them, --all-read every entry. With --json: \
            {"entries":[…],"unread":N,"more":B}: the entries as they were listed (an entry --mark-read then \
            marked still says "read":false), N the unread entries left in the whole inbox after the marking, B \
            whether older entries are left.

            Exit codes: 0 done; 1 the server has no inbox, or another failure; 2 a bad option; 4 cannot connect.
            """)

    @OptionGroup var connection: ConnectionOptions
    @Flag(help: "Only the entries not read yet.") var unread = false
    @Option(help: "How many entries (at most \(BoardClient.inboxLimitMax)).") var limit = 50
    @Option(help: "Only entries older than this entry id (the next page after a list that ended at it).")
    var before: Int64?
    @Flag(name: .customLong("mark-read"), help: "Mark the entries listed read, after printing them.")
    var markRead = false
    @Flag(name: .customLong("all-read"), help: "Mark every entry of the inbox read, after printing.")
    var allRead = false
    @Flag(help: "Print JSON.") var json = false

    func validate() throws {
        guard (1...BoardClient.inboxLimitMax).contains(limit) else {
            throw ValidationError("--limit must be 1…\(BoardClient.inboxLimitMax)")
        }
        if let before, before < 1 { throw ValidationError("--before takes an entry id (1 or more), not \(before)") }
        if markRead && allRead { throw ValidationError("--mark-read marks the entries listed, --all-read every entry: give one") }
    }

    func run() async throws {
        let (unreadOnly, limit, before, markRead, allRead, json) = (unread, limit, before, markRead, allRead, json)
        let session = try connection.session()
        let (boardID, timeout) = (session.target.board, session.timeout)
        try await session.withConnection { client, welcome in
            guard await client.offersInbox else {
                throw CorkFailure(
                    .failure,
                    "this server (\(welcome.server)) does not offer an inbox (no `inbox` in welcome.features); "
                        + "it needs a newer corkd")
            }
            let page = try await client.inbox(unread: unreadOnly, limit: limit, before: before)
            let entries = page.entries.sorted { $0.id > $1.id }
            // A full page may have more behind it: one entry past the oldest says whether there is.
            var more = false
            if entries.count == limit, let oldest = entries.last?.id {
                more = !(try await client.inbox(unread: unreadOnly, limit: 1, before: oldest).entries.isEmpty)
            }
            // Card numbers come from the board connected to, when an entry is about one of its cards: best effort
            // (without it, cards show by id).
            var board: Board?
            if entries.contains(where: { $0.board == boardID && $0.card != nil }) {
                await client.switchBoard(to: boardID)
                board = try? await client.ready(timeout: timeout)
            }
            let marking = allRead ? nil : markRead ? entries.filter { !$0.read }.map(\.id) : []
            var unreadLeft = page.unread
            if allRead {
                unreadLeft = 0
            } else if let marking {
                unreadLeft = max(0, page.unread - marking.count)
            }
            if json {
                Output.line(CorkJSON.line(CorkJSON.Inbox(entries: entries, unread: unreadLeft, more: more)))
            } else {
                if entries.isEmpty, let before {
                    Output.line("nothing \(unreadOnly ? "unread " : "")older than entry \(before) in your inbox")
                } else {
                    Output.write(InboxText.list(entries, on: board, unreadOnly: unreadOnly))
                }
                if more, let oldest = entries.last?.id {
                    let options = (unreadOnly ? " --unread" : "") + (limit == 50 ? "" : " --limit \(limit)")
                    Output.line("older entries: cork inbox\(options) --before \(oldest)")
                }
            }
            // After printing: what was listed is read (or everything is).
            if allRead {
                try await client.markInboxRead(ids: nil, all: true)
                if !json { Output.line("marked every entry read") }
            } else if let marking, !marking.isEmpty {
                try await client.markInboxRead(ids: marking, all: false)
                if !json { Output.line("marked \(marking.count) entr\(marking.count == 1 ? "y" : "ies") read") }
            }
        }
    }
}
