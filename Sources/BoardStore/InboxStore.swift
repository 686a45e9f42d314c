import BoardCore

/// Users' inboxes, kept by the SQLite and the PostgreSQL store alike: the entries the server derives from committed
/// changes (``InboxRules``), their read state, and how far each board's changes have been turned into entries.
///
/// Entries are unique by ``InboxEntry/key``: deriving them again after a restart, or on another node, stores none
/// twice. Storing entries and moving the board's cursor is one transaction, so a crash loses none and doubles none.
public protocol InboxStore: Sendable {
    /// The last seq of `board` whose entries are stored; nil when the board's changes were never read for inboxes.
    func inboxCursor(board: BoardID) async throws(StoreError) -> UInt64?

    /// Stores the entries that are not stored yet and moves the board's cursor to `seq` (never back; nil leaves it),
    /// in one transaction; returns the entries newly stored, with their ids.
    func addInboxEntries(_ entries: [InboxEntry], board: BoardID, through seq: UInt64?) async throws(StoreError) -> [InboxEntry]

    /// Entries of every user stored after `id`, oldest first, at most `limit`: what a node sends to the sessions
    /// it serves.
    func inboxEntries(after id: Int64, limit: Int) async throws(StoreError) -> [InboxEntry]

    /// The largest entry id so far (0 when there is none): where a starting node begins to send.
    func newestInboxID() async throws(StoreError) -> Int64

    /// The user's entries, newest first: unread ones only when `unreadOnly`, ids below `before` when given.
    func inbox(user: UserID, unreadOnly: Bool, before: Int64?, limit: Int) async throws(StoreError) -> [InboxEntry]

    /// How many of the user's entries are unread.
    func unreadCount(user: UserID) async throws(StoreError) -> Int

    /// The user's mail settings; nil when never set.
    func notifySettings(user: UserID) async throws(StoreError) -> NotifySettings?

    /// Replaces the user's mail settings.
    func setNotifySettings(_ settings: NotifySettings, user: UserID) async throws(StoreError)

    /// The users with a mail address, and their settings.
    func mailRecipients() async throws(StoreError) -> [(user: UserID, settings: NotifySettings)]

    /// The user's entries that are unread and not mailed yet, oldest first.
    func unmailedEntries(user: UserID) async throws(StoreError) -> [InboxEntry]

    /// Records that the entries were mailed (or need never be).
    func markMailed(_ ids: [Int64], at: Timestamp) async throws(StoreError)

    /// Marks the user's entries `ids` read (every entry when nil); returns the ids that were unread, ascending.
    func markInboxRead(user: UserID, ids: [Int64]?, at: Timestamp) async throws(StoreError) -> [Int64]
}
