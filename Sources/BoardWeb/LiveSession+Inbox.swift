import BoardClient
import BoardClientCore
import BoardCore
import Foundation

/// The user's inbox on the page (feature `inbox`): a first page once the page has its board (and again after the
/// client reconnects), each new entry and read as it comes, and what the page asks for: a page, entries read.
extension LiveSession {
    /// The entries one page holds unless the page asks for another number.
    static let inboxPageSize = 50

    /// A new entry or a read, from the server: passed on, the entry with its sentence for the board shown.
    func inboxEvent(_ event: InboxEvent, client: BoardClient, send: (any Encodable) async -> Void) async {
        switch event {
        case .entry(let entry, let unread):
            let board = await client.board
            await send(LiveMessage.InboxEntryPushed(entry: LiveMessage.InboxEntryView(entry, on: board), unread: unread))
        case .read(let ids, let unread):
            await send(LiveMessage.InboxRead(ids: ids, unread: unread))
        }
    }

    /// Sends a page of the inbox, newest first. Unasked (on open, after a reconnect) a server without the inbox, or
    /// a failure, sends nothing: the page then shows no inbox. Asked, the page is told why in `error`.
    func sendInbox(
        client: BoardClient, unread: Bool = false, limit: Int = LiveSession.inboxPageSize, before: Int64? = nil,
        asked: Bool = false, send: (any Encodable) async -> Void
    ) async {
        guard await client.offersInbox else {
            if asked {
                await send(
                    LiveMessage.Inbox(
                        unread: nil, entries: [], before: before, more: false,
                        error: "this server has no inbox (it needs a newer corkd)"))
            }
            return
        }
        do {
            let page = try await client.inbox(unread: unread, limit: limit, before: before, timeout: .seconds(15))
            let board = await client.board
            let entries = page.entries.sorted { $0.id > $1.id }.map { LiveMessage.InboxEntryView($0, on: board) }
            await send(
                LiveMessage.Inbox(
                    unread: page.unread, entries: entries, before: before, more: page.entries.count >= limit, error: nil))
        } catch {
            logger.debug("the inbox could not be read", metadata: ["error": "\(error.message)"])
            if asked {
                await send(LiveMessage.Inbox(unread: nil, entries: [], before: before, more: false, error: error.message))
            }
        }
    }

    /// The page's `inbox`: `unread?`, `limit?` (1–200), `before?`.
    func inboxRequest(_ object: [String: Any], client: BoardClient, send: (any Encodable) async -> Void) async {
        let limit = (object["limit"] as? Int).map { min(max($0, 1), BoardClient.inboxLimitMax) } ?? Self.inboxPageSize
        let before = (object["before"] as? Int).map(Int64.init)
        let unread = object["unread"] as? Bool ?? false
        await sendInbox(client: client, unread: unread, limit: limit, before: before, asked: true, send: send)
    }

    /// The page's `inbox.read`: `ids` or `all: true`. The server's `inbox.read` that follows reaches every page and
    /// client of the user, this one included; a refusal comes back as a `rejected` of op `inbox.read`.
    func inboxReadRequest(_ object: [String: Any], client: BoardClient, send: (any Encodable) async -> Void) async {
        let all = object["all"] as? Bool ?? false
        let ids = (object["ids"] as? [Any])?.compactMap { ($0 as? Int).map(Int64.init) } ?? []
        guard all || !ids.isEmpty else {
            await send(
                LiveMessage.Rejected(code: "invalid", reason: "inbox.read needs ids or all", op: "inbox.read", card: nil))
            return
        }
        do {
            try await client.markInboxRead(ids: all ? nil : ids, all: all, timeout: .seconds(15))
        } catch {
            await send(LiveMessage.Rejected(code: error.code.rawValue, reason: error.message, op: "inbox.read", card: nil))
        }
    }
}
