import BoardCore
import Foundation
import GRDB

extension SQLiteStore: StoreExport {
    /// Every user, by name.
    public func exportUsers() async throws(StoreError) -> [StoredUser] {
        try await read("export users") { db in
            try Row.fetchAll(db, sql: "SELECT name, display, account, created_at FROM users ORDER BY name").map(Self.user)
        }
    }

    /// A `users` row as a record.
    private static func user(_ row: Row) throws(StoreError) -> StoredUser {
            let name: String = try StoreCoding.column(row, 0)
            guard let user = UserID(validating: name) else { throw StoreError(.corrupt, "stored user name \(name) is not valid") }
            return StoredUser(
                name: user, displayName: try StoreCoding.column(row, 1), account: try StoreCoding.column(row, 2),
                createdAt: try StoreCoding.column(row, 3))
    }

    /// Every token's hash and dates, by user.
    public func exportTokens() async throws(StoreError) -> [StoredToken] {
        try await read("export tokens") { db in
            try Row.fetchAll(db, sql: "SELECT hash, user, created_at, expires_at, revoked_at FROM tokens ORDER BY user, created_at, hash")
                .map(Self.token)
        }
    }

    /// A `tokens` row as a record.
    private static func token(_ row: Row) throws(StoreError) -> StoredToken {
            let name: String = try StoreCoding.column(row, 1)
            guard let user = UserID(validating: name) else { throw StoreError(.corrupt, "stored token user \(name) is not valid") }
            let expires: Int64? = try StoreCoding.column(row, 3)
            let revoked: Int64? = try StoreCoding.column(row, 4)
            return StoredToken(
                hash: try StoreCoding.column(row, 0), user: user,
                createdAt: Timestamp(milliseconds: try StoreCoding.column(row, 2)),
                expiresAt: expires.map(Timestamp.init(milliseconds:)), revokedAt: revoked.map(Timestamp.init(milliseconds:)))
    }

    /// Every kept snapshot of a board, oldest first.
    public func exportSnapshots(_ board: BoardID) async throws(StoreError) -> [Board] {
        let id = board.rawValue
        let states = try await read("export snapshots of \(id)") { db in
            try String.fetchAll(db, sql: "SELECT state FROM snapshots WHERE board = ? ORDER BY seq", arguments: [id])
        }
        let decoder = JSONDecoder()
        return try states.map { (state: String) throws(StoreError) in
            try StoreCoding.decode(Board.self, state, decoder, "snapshot of \(id)")
        }
    }
}
