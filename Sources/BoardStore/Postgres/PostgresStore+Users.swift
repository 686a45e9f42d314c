import BoardCore
import Foundation
import Logging
import PostgresNIO

extension PostgresStore {
    /// Creates the user if missing; returns whether it was created (an existing user keeps its display name).
    public func ensureUser(_ user: UserID, displayName: String) async throws(StoreError) -> Bool {
        let name = user.rawValue
        let logger = self.logger
        return try await write("ensure user \(name)") { connection in
            try await connection.query(
                "INSERT INTO users (name, display) VALUES (\(name), \(displayName)) ON CONFLICT (name) DO NOTHING RETURNING name",
                logger: logger
            ).collect().count == 1
        }
    }

    /// Makes a new random token for the user, stores only its SHA-256 hash and returns the token text, once;
    /// `.notFound` if the user does not exist.
    public func issueToken(for user: UserID, expiresAt: Timestamp?, now: Timestamp) async throws(StoreError) -> String {
        let token = Token.generate()
        let hash = Token.hash(token)
        let name = user.rawValue
        let logger = self.logger
        try await write("issue token for \(name)") { connection in
            guard try await connection.query("SELECT 1 FROM users WHERE name = \(name)", logger: logger).collect().count == 1
            else { throw StoreError(.notFound, "no user \(name)") }
            try await connection.query(
                """
                INSERT INTO tokens (hash, username, created_at, expires_at)
                VALUES (\(hash), \(name), \(now.milliseconds), \(expiresAt?.milliseconds))
                """, logger: logger)
        }
        return token
    }

    /// Looks a presented token up by its SHA-256 hash: its user, account role, and whether it is expired or revoked;
    /// nil if no such token was issued.
    public func authenticate(token: String, now: Timestamp) async throws(StoreError) -> TokenCheck? {
        let hash = Token.hash(token)
        let logger = self.logger
        let found = try await read("authenticate") { connection -> (String, Int64?, Int64?, String?)? in
            var found: (String, Int64?, Int64?, String?)?
            for try await row in try await connection.query(
                """
                SELECT tokens.username, tokens.expires_at, tokens.revoked_at, users.account
                FROM tokens LEFT JOIN users ON users.name = tokens.username WHERE tokens.hash = \(hash)
                """, logger: logger
            ).decode((String, Int64?, Int64?, String?).self) {
                found = row
            }
            return found
        }
        guard let found else { return nil }
        return TokenCheck(
            user: UserID(found.0), expired: found.1.map { now.milliseconds >= $0 } ?? false, revoked: found.2 != nil,
            account: found.3.flatMap(Role.init(rawValue:)))
    }

    /// Revokes every token of the user that is not revoked yet (at `now`); returns how many.
    public func revokeTokens(of user: UserID, now: Timestamp) async throws(StoreError) -> Int {
        let name = user.rawValue
        let logger = self.logger
        let count = try await write("revoke tokens of \(name)") { connection -> Int? in
            let count = try await connection.query(
                """
                UPDATE tokens SET revoked_at = \(now.milliseconds) WHERE username = \(name) AND revoked_at IS NULL
                RETURNING hash
                """, logger: logger
            ).collect().count
            if count == 0, try await connection.query("SELECT 1 FROM users WHERE name = \(name)", logger: logger).collect().isEmpty {
                return nil
            }
            return count
        }
        guard let count else { throw StoreError(.notFound, "no user \(name)") }
        return count
    }

    /// Creates each user that is missing and issues one new token per entry in one transaction; returns the tokens
    /// in order. Users in `bots` become bot accounts unless their account already has a role.
    public func inviteUsers(
        _ users: [UserID], bots: Set<UserID> = [], expiresAt: Timestamp?, now: Timestamp
    ) async throws(StoreError) -> [String] {
        let tokens = users.map { _ in Token.generate() }
        let rows = zip(users, tokens).map { (user: $0.rawValue, hash: Token.hash($1)) }
        let botNames = bots.map(\.rawValue)
        let logger = self.logger
        try await write("invite \(rows.count) user(s)") { connection in
            for row in rows {
                try await connection.query(
                    "INSERT INTO users (name, display) VALUES (\(row.user), '') ON CONFLICT (name) DO NOTHING",
                    logger: logger)
                try await connection.query(
                    """
                    INSERT INTO tokens (hash, username, created_at, expires_at)
                    VALUES (\(row.hash), \(row.user), \(now.milliseconds), \(expiresAt?.milliseconds))
                    """, logger: logger)
            }
            for name in botNames { try await Self.markBotAccount(name, connection, logger: logger) }
        }
        return tokens
    }

    /// Deletes the tokens of invites that were refused (their URLs were never handed out).
    public func withdrawTokens(_ tokens: [String]) async throws(StoreError) {
        guard !tokens.isEmpty else { return }
        let hashes = tokens.map(Token.hash)
        let logger = self.logger
        try await write("withdraw \(hashes.count) token(s)") { connection in
            for hash in hashes { try await connection.query("DELETE FROM tokens WHERE hash = \(hash)", logger: logger) }
        }
    }

    /// Makes `user` the server's administrator (account role `owner`) unless the store already has one; returns
    /// whether it did. A user that does not exist is left alone.
    public func ensureAdministrator(_ user: UserID) async throws(StoreError) -> Bool {
        let name = user.rawValue
        let logger = self.logger
        return try await write("ensure administrator \(name)") { connection in
            // One administrator even when two nodes start at once.
            try await connection.query("LOCK TABLE users IN SHARE ROW EXCLUSIVE MODE", logger: logger)
            guard try await connection.query("SELECT 1 FROM users WHERE account = 'owner'", logger: logger).collect().isEmpty
            else { return false }
            return try await connection.query(
                "UPDATE users SET account = 'owner' WHERE name = \(name) RETURNING name", logger: logger
            ).collect().count == 1
        }
    }

    /// Makes `name` a bot account unless its account already has a role.
    static func markBotAccount(_ name: String, _ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            "UPDATE users SET account = 'bot' WHERE name = \(name) AND account IS NULL", logger: logger)
    }
}
