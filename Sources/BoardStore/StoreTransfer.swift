import BoardCore
import Foundation

/// A user as stored, for copying a store (`corkd migrate-store`).
public struct StoredUser: Hashable, Sendable {
    /// The user's name.
    public var name: UserID
    /// The display name.
    public var displayName: String
    /// The account role (`owner` for the administrator, `bot`), or nil.
    public var account: String?
    /// When the user was created, in milliseconds since the Unix epoch.
    public var createdAt: Int64

    /// Makes a record.
    public init(name: UserID, displayName: String, account: String?, createdAt: Int64) {
        self.name = name
        self.displayName = displayName
        self.account = account
        self.createdAt = createdAt
    }
}

/// A token as stored: only its SHA-256 hash, never the token.
public struct StoredToken: Hashable, Sendable {
    /// SHA-256 of the token text.
    public var hash: Data
    /// Whose it is.
    public var user: UserID
    /// When it was issued.
    public var createdAt: Timestamp
    /// When it stops working, or nil.
    public var expiresAt: Timestamp?
    /// When it was revoked, or nil.
    public var revokedAt: Timestamp?

    /// Makes a record.
    public init(hash: Data, user: UserID, createdAt: Timestamp, expiresAt: Timestamp?, revokedAt: Timestamp?) {
        self.hash = hash
        self.user = user
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
    }
}

/// What a store gives up to be copied into another: everything `BoardStore` does not list (users, token hashes,
/// every kept snapshot). Events are read with `events(_:from:to:limit:)`.
public protocol StoreExport: AdminStore {
    /// Every user, by name.
    func exportUsers() async throws(StoreError) -> [StoredUser]
    /// Every token's hash and dates, by user.
    func exportTokens() async throws(StoreError) -> [StoredToken]
    /// Every kept snapshot of a board, oldest first.
    func exportSnapshots(_ board: BoardID) async throws(StoreError) -> [Board]
}

/// What a store takes from another when it is filled by a copy: boards keep their epoch (clients resume by seq
/// across the move) and tokens keep working.
public protocol StoreImport: AdminStore {
    /// Whether the store has no board, user or token.
    func isEmpty() async throws(StoreError) -> Bool
    /// Inserts users and tokens in one transaction; `.duplicate` if one exists.
    func importAccounts(users: [StoredUser], tokens: [StoredToken]) async throws(StoreError)
    /// Inserts a board with the record's id, name and epoch, its events (contiguous, from seq 1 or right after the
    /// oldest snapshot's seq when the board was made at a later seq) and its snapshots, in one transaction, with the
    /// same checks as `append`; the board is archived when the record says so. `.duplicate` if it exists.
    func importBoard(_ record: BoardRecord, snapshots: [Board], events: [StoredEvent], now: Timestamp) async throws(StoreError)
}
