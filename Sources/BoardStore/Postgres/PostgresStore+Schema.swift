import Logging
import PostgresNIO

extension PostgresStore {
    /// Milliseconds since the Unix epoch, for bookkeeping columns the API gives no time for.
    static let nowMillisecondsSQL = "(extract(epoch from clock_timestamp()) * 1000)::bigint"

    /// The key of the advisory lock that serializes migrations between nodes starting at once.
    static let migrationLock: Int64 = 0x636F_726B_6D69_6772  // "corkmigr"

    /// The schema, one migration per released change, each a list of statements run in one transaction. Never edit a
    /// released migration; add a new one. Column `user` of the SQLite schema is `username` here (a reserved word).
    static let migrations: [(name: String, statements: [String])] = [
        (
            "v1",
            [
                """
                CREATE TABLE boards (
                    id TEXT PRIMARY KEY,
                    name TEXT NOT NULL,
                    epoch TEXT NOT NULL,
                    head BIGINT NOT NULL,
                    created_at BIGINT NOT NULL DEFAULT \(nowMillisecondsSQL),
                    archived_at BIGINT
                )
                """,
                """
                CREATE TABLE events (
                    board TEXT NOT NULL REFERENCES boards(id),
                    seq BIGINT NOT NULL,
                    at BIGINT NOT NULL,
                    actor TEXT NOT NULL,
                    client_id TEXT,
                    mut BIGINT,
                    card TEXT,
                    kind TEXT NOT NULL,
                    op TEXT NOT NULL,
                    activity TEXT NOT NULL,
                    inverse TEXT,
                    undo_of BIGINT,
                    PRIMARY KEY (board, seq)
                )
                """,
                """
                CREATE UNIQUE INDEX events_mutation ON events (actor, client_id, mut)
                    WHERE client_id IS NOT NULL AND mut IS NOT NULL
                """,
                "CREATE INDEX events_card ON events (board, card, seq) WHERE card IS NOT NULL",
                """
                CREATE TABLE snapshots (
                    board TEXT NOT NULL REFERENCES boards(id),
                    seq BIGINT NOT NULL,
                    state TEXT NOT NULL,
                    PRIMARY KEY (board, seq)
                )
                """,
                """
                CREATE TABLE client_boards (
                    username TEXT NOT NULL,
                    client_id TEXT NOT NULL,
                    board TEXT NOT NULL,
                    last_mut BIGINT NOT NULL,
                    PRIMARY KEY (username, client_id, board)
                )
                """,
                """
                CREATE TABLE users (
                    name TEXT PRIMARY KEY,
                    display TEXT NOT NULL,
                    created_at BIGINT NOT NULL DEFAULT \(nowMillisecondsSQL),
                    account TEXT
                )
                """,
                """
                CREATE TABLE tokens (
                    hash BYTEA PRIMARY KEY,
                    username TEXT NOT NULL REFERENCES users(name),
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT,
                    revoked_at BIGINT
                )
                """,
                "CREATE INDEX tokens_user ON tokens (username)",
                """
                CREATE TABLE admin (
                    id BIGSERIAL PRIMARY KEY,
                    command TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    done_at BIGINT,
                    failure TEXT
                )
                """,
                "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            ]
        ),
        (
            // Outgoing webhooks: the queue is the events table read from `delivered_seq` + 1 on.
            "v2-hooks",
            [
                """
                CREATE TABLE hooks (
                    id TEXT PRIMARY KEY,
                    board TEXT NOT NULL REFERENCES boards(id),
                    url TEXT NOT NULL,
                    events TEXT NOT NULL,
                    secret TEXT NOT NULL,
                    created_by TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    delivered_seq BIGINT NOT NULL,
                    failures BIGINT NOT NULL DEFAULT 0,
                    failing_since BIGINT,
                    failing BOOLEAN NOT NULL DEFAULT FALSE,
                    last_error TEXT,
                    last_attempt_at BIGINT
                )
                """,
                "CREATE INDEX hooks_board ON hooks (board, created_at)",
            ]
        ),
        (
            // Users' inboxes: entries derived from committed changes, one per `key`, and per board the last seq
            // whose entries are stored.
            "v3-inbox",
            [
                """
                CREATE TABLE inbox (
                    id BIGSERIAL PRIMARY KEY,
                    username TEXT NOT NULL,
                    board TEXT NOT NULL,
                    seq BIGINT NOT NULL,
                    card TEXT,
                    kind TEXT NOT NULL,
                    actor TEXT NOT NULL,
                    at BIGINT NOT NULL,
                    text TEXT NOT NULL,
                    read_at BIGINT,
                    mailed_at BIGINT,
                    key TEXT NOT NULL UNIQUE
                )
                """,
                "CREATE INDEX inbox_user ON inbox (username, id)",
                "CREATE TABLE inbox_cursors (board TEXT PRIMARY KEY, seq BIGINT NOT NULL)",
                // The boards that exist now tell nobody about their past; a board made later starts at 0.
                "INSERT INTO inbox_cursors (board, seq) SELECT id, head FROM boards",
            ]
        ),
        (
            // Users' mail settings (`NotifySettings` as JSON), with the address beside it for the mailer's query.
            "v4-notify",
            [
                "CREATE TABLE notify_settings (username TEXT PRIMARY KEY, email TEXT, settings TEXT NOT NULL)",
                "CREATE INDEX inbox_unmailed ON inbox (username, id) WHERE read_at IS NULL AND mailed_at IS NULL",
            ]
        ),
        (
            // A hook's card query (the search language, as written); null: every change its events pass.
            "v5-hook-query",
            ["ALTER TABLE hooks ADD COLUMN card_query TEXT"]
        ),
    ]

    /// How long the migration at start waits for its first connection: many nodes (or test suites) starting beside
    /// one busy database may take longer than an op's five seconds to be let in.
    static let migrationLeaseTimeout: Duration = .seconds(60)

    /// Brings the schema up to date in one transaction, holding an advisory lock so that nodes starting together
    /// take turns (the second finds the work done). `.corrupt` if the database has migrations this build does not
    /// know (a newer corkd migrated it).
    func migrate() async throws(StoreError) {
        let known = Set(Self.migrations.map(\.name))
        let logger = self.logger
        let applied = try await write("migrate", leaseTimeout: Self.migrationLeaseTimeout) { connection -> [String] in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.migrationLock))", logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    name TEXT PRIMARY KEY, applied_at BIGINT NOT NULL DEFAULT \(unescaped: Self.nowMillisecondsSQL))
                """, logger: logger)
            var done = Set<String>()
            for try await name in try await connection.query("SELECT name FROM schema_migrations", logger: logger)
                .decode(String.self)
            {
                done.insert(name)
            }
            if let unknown = done.subtracting(known).sorted().first {
                throw StoreError(.corrupt, "the database was migrated by a newer corkd (migration \(unknown))")
            }
            var applied: [String] = []
            for migration in Self.migrations where !done.contains(migration.name) {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO schema_migrations (name) VALUES (\(migration.name))", logger: logger)
                applied.append(migration.name)
            }
            return applied
        }
        if !applied.isEmpty { logger.info("migrated the store", metadata: ["migrations": "\(applied)", "store": "\(location)"]) }
    }
}
