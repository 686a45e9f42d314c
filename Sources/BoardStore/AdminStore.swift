import BoardCore

/// What `corkd`'s own commands (`invite`, `revoke`, `board`, first start) need of a store beyond what the server
/// uses; the SQLite and the PostgreSQL store both provide it, so every admin command works on either.
public protocol AdminStore: BoardStore {
    /// Queues commands in one transaction; returns their ids in order (bot invites mark bot accounts).
    func enqueue(_ commands: [AdminCommand], now: Timestamp) async throws(StoreError) -> [Int64]

    /// Where each command stands; `.notFound` if one of them does not exist.
    func outcomes(_ ids: [Int64]) async throws(StoreError) -> [Int64: AdminOutcome]

    /// Creates missing users and issues one token per entry in one transaction; returns the tokens in order.
    func inviteUsers(_ users: [UserID], bots: Set<UserID>, expiresAt: Timestamp?, now: Timestamp) async throws(StoreError)
        -> [String]

    /// Deletes tokens issued for invites that were then refused.
    func withdrawTokens(_ tokens: [String]) async throws(StoreError)

    /// Makes `user` the administrator unless the store has one; returns whether it did.
    func ensureAdministrator(_ user: UserID) async throws(StoreError) -> Bool

    /// Checks the stored data is whole (SQLite: `PRAGMA quick_check`; PostgreSQL: every board's head matches its
    /// log); false when it is not.
    func quickCheck() async throws(StoreError) -> Bool

    /// Closes the store; later calls fail.
    func close() async throws(StoreError)

    /// Gives back memory the store holds only for speed (SQLite: its read-only connections, each with its page
    /// cache; they open again on the next read). corkd calls it with each memory trim.
    func releaseIdleMemory()
}

extension AdminStore {
    /// Nothing to give back (PostgreSQL's connections are the pool's, and hold no cache of ours).
    public func releaseIdleMemory() {}

    /// `inviteUsers` with no bot accounts.
    public func inviteUsers(_ users: [UserID], expiresAt: Timestamp?, now: Timestamp) async throws(StoreError) -> [String] {
        try await inviteUsers(users, bots: [], expiresAt: expiresAt, now: now)
    }
}

extension SQLiteStore: AdminStore {}
