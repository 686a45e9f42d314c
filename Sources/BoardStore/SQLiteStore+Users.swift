import BoardCore
import Foundation
import GRDB

extension SQLiteStore {
    /// Creates the user if missing; returns whether it was created (an existing user keeps its display name).
    public func ensureUser(_ user: UserID, displayName: String) async throws(StoreError) -> Bool {
        let name = user.rawValue
        return try await write("ensure user \(name)") { db in
            try db.execute(
                sql: "INSERT INTO users (name, display) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
                arguments: [name, displayName])
            return db.changesCount == 1
        }
    }

    /// Makes a new random token for the user, stores only its SHA-256 hash and returns the token text, once.
    ///
    /// The text is `ck_` and 43 base64url characters (256 random bits). `.notFound` if the user does not exist.
    public func issueToken(for user: UserID, expiresAt: Timestamp?, now: Timestamp) async throws(StoreError) -> String {
        let token = Token.generate()
        let hash = Token.hash(token)
        let name = user.rawValue
        try await write("issue token for \(name)") { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM users WHERE name = ?", arguments: [name]) ?? false else {
                throw StoreError(.notFound, "no user \(name)")
            }
            try db.execute(
                sql: "INSERT INTO tokens (hash, user, created_at, expires_at) VALUES (?, ?, ?, ?)",
                arguments: [hash, name, now.milliseconds, expiresAt?.milliseconds])
        }
        logger.debug("issued token", metadata: ["user": "\(name)"])
        return token
    }

    /// Looks a presented token up by its SHA-256 hash: its user, the user's account role, and whether it is expired
    /// (`now >= expiresAt`) or revoked; nil if no such token was issued.
    ///
    /// The lookup is by hash, so the time it takes says nothing about how much of a guess was right.
    public func authenticate(token: String, now: Timestamp) async throws(StoreError) -> TokenCheck? {
        let hash = Token.hash(token)
        let found = try await read("authenticate") {
            db -> (user: String, expiresAt: Int64?, revoked: Bool, account: String?)? in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT tokens.user, tokens.expires_at, tokens.revoked_at, users.account
                        FROM tokens LEFT JOIN users ON users.name = tokens.user WHERE tokens.hash = ?
                        """,
                    arguments: [hash])
            else { return nil }
            let revokedAt: Int64? = try StoreCoding.column(row, 2)
            return (
                try StoreCoding.column(row, 0), try StoreCoding.column(row, 1), revokedAt != nil,
                try StoreCoding.column(row, 3)
            )
        }
        guard let found else { return nil }
        let expired = found.expiresAt.map { now.milliseconds >= $0 } ?? false
        return TokenCheck(
            user: UserID(found.user), expired: expired, revoked: found.revoked,
            account: found.account.flatMap(Role.init(rawValue:)))
    }

    /// Revokes every token of the user that is not revoked yet (at `now`); returns how many.
    public func revokeTokens(of user: UserID, now: Timestamp) async throws(StoreError) -> Int {
        let name = user.rawValue
        let count = try await write("revoke tokens of \(name)") { db -> Int? in
            try db.execute(
                sql: "UPDATE tokens SET revoked_at = ? WHERE user = ? AND revoked_at IS NULL",
                arguments: [now.milliseconds, name])
            let count = db.changesCount
            if count == 0, try Int.fetchOne(db, sql: "SELECT 1 FROM users WHERE name = ?", arguments: [name]) == nil {
                return nil
            }
            return count
        }
        guard let count else { throw StoreError(.notFound, "no user \(name)") }
        logger.debug("revoked tokens", metadata: ["user": "\(name)", "count": "\(count)"])
        return count
    }
}

extension SQLiteStore {
    /// Creates each user that is missing and issues one new token per entry, all in one transaction; returns the
    /// tokens in order (`corkd invite --users-file`: one durable write for a thousand users, not two thousand).
    /// Users in `bots` become bot accounts (see `markBotAccount`), whether or not a server will apply the invites.
    public func inviteUsers(
        _ users: [UserID], bots: Set<UserID> = [], expiresAt: Timestamp?, now: Timestamp
    ) async throws(StoreError) -> [String] {
        let tokens = users.map { _ in Token.generate() }
        let rows = zip(users, tokens).map { (user: $0.rawValue, hash: Token.hash($1)) }
        let botNames = bots.map(\.rawValue)
        try await write("invite \(rows.count) user(s)") { db in
            for row in rows {
                try db.execute(
                    sql: "INSERT INTO users (name, display) VALUES (?, '') ON CONFLICT (name) DO NOTHING",
                    arguments: [row.user])
                try db.execute(
                    sql: "INSERT INTO tokens (hash, user, created_at, expires_at) VALUES (?, ?, ?, ?)",
                    arguments: [row.hash, row.user, now.milliseconds, expiresAt?.milliseconds])
            }
            for name in botNames { try SQLiteStore.markBotAccount(name, in: db) }
        }
        logger.debug("invited users", metadata: ["count": "\(rows.count)"])
        return tokens
    }

    /// Deletes the tokens `inviteUsers` issued for invites that were then refused (their URLs were never handed
    /// out, so nothing else could ever revoke them). The users themselves stay.
    public func withdrawTokens(_ tokens: [String]) async throws(StoreError) {
        guard !tokens.isEmpty else { return }
        let hashes = tokens.map(Token.hash)
        try await write("withdraw \(hashes.count) token(s)") { db in
            for hash in hashes { try db.execute(sql: "DELETE FROM tokens WHERE hash = ?", arguments: [hash]) }
        }
    }
}
