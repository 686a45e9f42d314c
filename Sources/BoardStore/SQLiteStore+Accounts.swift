import BoardCore
import GRDB

extension SQLiteStore {
    /// Makes `user` the server's administrator (account role `owner`, sent in `welcome.role`) unless the store already
    /// has one; returns whether it did. A user that does not exist is left alone.
    ///
    /// `corkd` calls it on every start with the first-start owner, so stores created before account roles existed
    /// get their administrator too.
    public func ensureAdministrator(_ user: UserID) async throws(StoreError) -> Bool {
        let name = user.rawValue
        return try await write("ensure administrator \(name)") { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM users WHERE account = 'owner'") == nil else { return false }
            try db.execute(sql: "UPDATE users SET account = 'owner' WHERE name = ?", arguments: [name])
            return db.changesCount == 1
        }
    }

    /// Marks a user invited as a bot (`corkd invite --role bot`) as a bot account, in the transaction that queues the
    /// invite; an account that already has a role (the administrator, say) keeps it.
    static func markBotAccount(_ command: AdminCommand, in db: Database) throws {
        guard case .addMember(_, let user, .bot) = command else { return }
        try markBotAccount(user.rawValue, in: db)
    }

    /// Makes `name` a bot account unless its account already has a role.
    static func markBotAccount(_ name: String, in db: Database) throws {
        try db.execute(sql: "UPDATE users SET account = 'bot' WHERE name = ? AND account IS NULL", arguments: [name])
    }
}
