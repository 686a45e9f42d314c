import BoardCore
import BoardWire

/// The user's inbox (the `inbox` and `inbox.read` requests, feature `inbox`): what concerns them on any of their
/// boards, kept by the server and read once on any of their clients. New entries and reads arrive as
/// ``ClientEvent/inbox(_:)`` events, on every connection of the user whatever board it follows.
extension BoardClient {
    /// The most entries one ``inbox(unread:limit:before:timeout:)`` call returns.
    public static let inboxLimitMax = 200
    /// The most ids one `inbox.read` request carries; ``markInboxRead(ids:all:timeout:)`` sends more in several.
    public static let inboxReadBatch = 1000

    /// A page of the inbox, newest first: at most `limit` entries (1–200), only those not read yet with `unread`,
    /// only those older than the entry `before` (an id of the previous page's last entry) for the next page; and how
    /// many entries are unread in the whole inbox.
    public func inbox(
        unread: Bool = false, limit: Int = 50, before: Int64? = nil, timeout: Duration = .seconds(30)
    ) async throws(ClientError) -> (entries: [InboxEntry], unread: Int) {
        guard (1...Self.inboxLimitMax).contains(limit) else {
            throw ClientError(.invalidArgument, "the inbox limit must be 1-\(Self.inboxLimitMax), not \(limit)")
        }
        try await requireInbox(timeout: timeout)
        let answer = try await request(timeout: timeout) {
            .inbox(ClientMessage.InboxRequest(req: $0, unread: unread ? true : nil, limit: limit, before: before))
        }
        guard case .inbox(let page) = answer else { throw unexpected(answer, "inbox") }
        return (page.entries, page.unread)
    }

    /// Marks inbox entries read: those of `ids`, or every entry with `all`. Returns once the server has applied it;
    /// every client of the user (this one included) then hears ``InboxEvent/read(ids:unread:)``. Marking nothing
    /// (`ids` empty, `all` false) sends nothing.
    public func markInboxRead(ids: [Int64]?, all: Bool, timeout: Duration = .seconds(30)) async throws(ClientError) {
        guard all || ids != nil else {
            throw ClientError(.invalidArgument, "name the inbox entries to mark read, or mark all of them")
        }
        if !all, ids?.isEmpty ?? true { return }
        try await requireInbox(timeout: timeout)
        if all {
            let answer = try await request(timeout: timeout) { .readInbox(ClientMessage.InboxRead(req: $0, all: true)) }
            guard case .ok = answer else { throw unexpected(answer, "ok") }
            return
        }
        // The server takes a bounded number of ids per request.
        let wanted = ids ?? []
        for start in stride(from: 0, to: wanted.count, by: Self.inboxReadBatch) {
            let batch = Array(wanted[start..<min(wanted.count, start + Self.inboxReadBatch)])
            let answer = try await request(timeout: timeout) { .readInbox(ClientMessage.InboxRead(req: $0, ids: batch)) }
            guard case .ok = answer else { throw unexpected(answer, "ok") }
        }
    }

    /// Unread entries in the inbox as the server last said (a page, a new entry or a read); nil until it said.
    public var inboxUnread: Int? { session.inboxUnread }

    /// Whether the server of the current connection offers the inbox (`inbox` in welcome.features); false before
    /// the first welcome.
    public var offersInbox: Bool { session.welcome?.features?.contains("inbox") == true }

    /// Refuses before sending when the server's `welcome` does not list the `inbox` feature (Protocol.md,
    /// "Versioning"). Before the first welcome it waits for one (up to `timeout`): whether the server offers the inbox
    /// is not known until then.
    func requireInbox(timeout: Duration) async throws(ClientError) {
        if session.welcome == nil { _ = try await connected(timeout: timeout) }
        guard offersInbox else {
            throw ClientError(.invalidArgument, "this server does not offer an inbox (no `inbox` in welcome.features)")
        }
    }
}

/// The user's mail settings (the `notify` request, feature `inbox`): where unread inbox entries are mailed, which,
/// and after how long.
extension BoardClient {
    /// Changes the settings given (nil leaves one alone; `email: ""` removes the address, so nothing is mailed;
    /// `board` with `boardLevel` sets or, with `.clear`, removes one board's level) and returns them all.
    public func notifySettings(
        email: String? = nil, level: NotifySettings.Level? = nil, delayMs: Int64? = nil, board: BoardID? = nil,
        boardLevel: Clearable<NotifySettings.Level>? = nil, timeout: Duration = .seconds(30)
    ) async throws(ClientError) -> NotifySettings {
        try await requireInbox(timeout: timeout)
        let answer = try await request(timeout: timeout) {
            .notify(
                ClientMessage.NotifyRequest(
                    req: $0, email: email, level: level, delayMs: delayMs, board: board, boardLevel: boardLevel))
        }
        guard case .notify(let reply) = answer else { throw unexpected(answer, "notify") }
        return reply.settings
    }
}
