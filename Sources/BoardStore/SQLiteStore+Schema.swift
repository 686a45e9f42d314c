import GRDB

extension SQLiteStore {
    /// SQL for "now" in milliseconds since the Unix epoch, for bookkeeping columns the API gives no time for.
    static let nowMillisecondsSQL = "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)"

    /// The schema, one migration per released change. Never edit a registered migration; add a new one.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE boards (
                        id TEXT PRIMARY KEY NOT NULL,
                        name TEXT NOT NULL,
                        epoch TEXT NOT NULL,
                        head INTEGER NOT NULL,
                        created_at INTEGER NOT NULL DEFAULT (\(nowMillisecondsSQL))
                    );
                    CREATE TABLE events (
                        board TEXT NOT NULL REFERENCES boards(id),
                        seq INTEGER NOT NULL,
                        at INTEGER NOT NULL,
                        actor TEXT NOT NULL,
                        client_id TEXT,
                        mut INTEGER,
                        card TEXT,
                        kind TEXT NOT NULL,
                        op TEXT NOT NULL,
                        activity TEXT NOT NULL,
                        inverse TEXT,
                        undo_of INTEGER,
                        PRIMARY KEY (board, seq)
                    );
                    CREATE UNIQUE INDEX events_mutation ON events(actor, client_id, mut)
                        WHERE client_id IS NOT NULL AND mut IS NOT NULL;
                    CREATE INDEX events_card ON events(board, card, seq) WHERE card IS NOT NULL;
                    CREATE TABLE snapshots (
                        board TEXT NOT NULL REFERENCES boards(id),
                        seq INTEGER NOT NULL,
                        state TEXT NOT NULL,
                        PRIMARY KEY (board, seq)
                    );
                    CREATE TABLE clients (
                        user TEXT NOT NULL,
                        client_id TEXT NOT NULL,
                        last_mut INTEGER NOT NULL,
                        PRIMARY KEY (user, client_id)
                    );
                    CREATE TABLE users (
                        name TEXT PRIMARY KEY NOT NULL,
                        display TEXT NOT NULL,
                        created_at INTEGER NOT NULL DEFAULT (\(nowMillisecondsSQL))
                    );
                    CREATE TABLE tokens (
                        hash BLOB PRIMARY KEY NOT NULL,
                        user TEXT NOT NULL REFERENCES users(name),
                        created_at INTEGER NOT NULL,
                        expires_at INTEGER,
                        revoked_at INTEGER
                    );
                    CREATE INDEX tokens_user ON tokens(user);
                    CREATE TABLE admin (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        command TEXT NOT NULL,
                        created_at INTEGER NOT NULL,
                        done_at INTEGER
                    );
                    CREATE TABLE meta (
                        key TEXT PRIMARY KEY NOT NULL,
                        value TEXT NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v2-accounts") { db in
            // The account role (`welcome.role`): 'owner' for the administrator, 'bot' for a bot account, NULL otherwise.
            try db.execute(sql: "ALTER TABLE users ADD COLUMN account TEXT")
        }
        migrator.registerMigration("v2-client-boards") { db in
            // Exactly-once state per client on each board, as Protocol.md promises: `clients` kept one mark per
            // client across boards, so after a restart an op on one board was refused as stale because a higher mut
            // had been applied on another. The marks are rebuilt from the events themselves.
            try db.execute(
                sql: """
                    CREATE TABLE client_boards (
                        user TEXT NOT NULL,
                        client_id TEXT NOT NULL,
                        board TEXT NOT NULL,
                        last_mut INTEGER NOT NULL,
                        PRIMARY KEY (user, client_id, board)
                    );
                    INSERT INTO client_boards (user, client_id, board, last_mut)
                        SELECT actor, client_id, board, max(mut) FROM events
                        WHERE client_id IS NOT NULL AND mut IS NOT NULL
                        GROUP BY actor, client_id, board;
                    DROP TABLE clients;
                    """)
        }
        migrator.registerMigration("v2-admin-outcomes") { db in
            // The outcome of an admin command (JSON `AdminFailure`; null when applied), for the tool that waits.
            try db.execute(sql: "ALTER TABLE admin ADD COLUMN failure TEXT")
            // An archived board keeps its data but is not served (`corkd board archive`).
            try db.execute(sql: "ALTER TABLE boards ADD COLUMN archived_at INTEGER")
        }
        migrator.registerMigration("v3-hooks") { db in
            // Outgoing webhooks. Their queue is the events table read from `delivered_seq` + 1 on: no
            // second copy of the changes. The secret is kept as given: the server signs every delivery with it.
            try db.execute(
                sql: """
                    CREATE TABLE hooks (
                        id TEXT PRIMARY KEY NOT NULL,
                        board TEXT NOT NULL REFERENCES boards(id),
                        url TEXT NOT NULL,
                        events TEXT NOT NULL,
                        secret TEXT NOT NULL,
                        created_by TEXT NOT NULL,
                        created_at INTEGER NOT NULL,
                        delivered_seq INTEGER NOT NULL,
                        failures INTEGER NOT NULL DEFAULT 0,
                        failing_since INTEGER,
                        failing INTEGER NOT NULL DEFAULT 0,
                        last_error TEXT,
                        last_attempt_at INTEGER
                    );
                    CREATE INDEX hooks_board ON hooks(board, created_at);
                    """)
        }
        migrator.registerMigration("v4-inbox") { db in
            // Users' inboxes: entries derived from committed changes, one per `key` (user, board, seq, kind, card),
            // and per board the last seq whose entries are stored.
            try db.execute(
                sql: """
                    CREATE TABLE inbox (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        username TEXT NOT NULL,
                        board TEXT NOT NULL,
                        seq INTEGER NOT NULL,
                        card TEXT,
                        kind TEXT NOT NULL,
                        actor TEXT NOT NULL,
                        at INTEGER NOT NULL,
                        text TEXT NOT NULL,
                        read_at INTEGER,
                        mailed_at INTEGER,
                        key TEXT NOT NULL UNIQUE
                    );
                    CREATE INDEX inbox_user ON inbox(username, id);
                    CREATE TABLE inbox_cursors (board TEXT PRIMARY KEY NOT NULL, seq INTEGER NOT NULL);
                    -- The boards that exist now tell nobody about their past; a board made later starts at 0.
                    INSERT INTO inbox_cursors (board, seq) SELECT id, head FROM boards;
                    """)
        }
        migrator.registerMigration("v5-notify") { db in
            // Users' mail settings (`NotifySettings` as JSON), with the address beside it for the mailer's query.
            try db.execute(
                sql: """
                    CREATE TABLE notify_settings (
                        username TEXT PRIMARY KEY NOT NULL,
                        email TEXT,
                        settings TEXT NOT NULL
                    );
                    CREATE INDEX inbox_unmailed ON inbox(username, id) WHERE read_at IS NULL AND mailed_at IS NULL;
                    """)
        }
        migrator.registerMigration("v6-hook-query") { db in
            // A hook's card query (the search language, as written); null: every change its events pass.
            try db.execute(sql: "ALTER TABLE hooks ADD COLUMN card_query TEXT")
        }
        return migrator
    }

    /// Brings the schema up to date (on the writer thread, as one barrier).
    func migrate() async throws(StoreError) {
        let pool = self.pool
        let closed = Result<Void, StoreError>.failure(StoreError(.internal, "migrate: the store is closed"))
        let result: Result<Void, StoreError> = await threads.write(closed: closed) {
            do {
                try SQLiteStore.migrator.migrate(pool)
                return .success(())
            } catch {
                return .failure(StoreError(error, context: "migrate"))
            }
        }
        try result.get()
    }
}
