import BoardCore
import Logging
import PostgresNIO

extension PostgresStore {
    public func inboxCursor(board: BoardID) async throws(StoreError) -> UInt64? {
        let id = board.rawValue
        let logger = self.logger
        let seq = try await read("inbox cursor") { connection -> Int64? in
            var found: Int64?
            for try await seq in try await connection.query("SELECT seq FROM inbox_cursors WHERE board = \(id)", logger: logger)
                .decode(Int64.self)
            {
                found = seq
            }
            return found
        }
        return try seq.map { (value: Int64) throws(StoreError) in try StoreCoding.uint64(value, "inbox cursor") }
    }

    public func addInboxEntries(_ entries: [InboxEntry], board: BoardID, through seq: UInt64?) async throws(StoreError)
        -> [InboxEntry]
    {
        let cursor = try seq.map { (value: UInt64) throws(StoreError) in try StoreCoding.int64(value, "inbox cursor") }
        let rows = try entries.map { (entry: InboxEntry) throws(StoreError) in
            (entry, try StoreCoding.int64(entry.seq, "seq"))
        }
        let id = board.rawValue
        let logger = self.logger
        return try await write("add inbox entries of \(board)") { connection in
            var stored: [InboxEntry] = []
            for (entry, seq) in rows {
                let query: PostgresQuery = """
                    INSERT INTO inbox (username, board, seq, card, kind, actor, at, text, key)
                    VALUES (\(entry.user.rawValue), \(entry.board.rawValue), \(seq), \(entry.card?.rawValue), \(entry.kind.rawValue),
                        \(entry.actor.rawValue), \(entry.at.milliseconds), \(entry.text), \(entry.key))
                    ON CONFLICT (key) DO NOTHING RETURNING id
                    """
                for try await newID in try await connection.query(query, logger: logger).decode(Int64.self) {
                    var saved = entry
                    saved.id = newID
                    stored.append(saved)
                }
            }
            if let cursor {
                try await connection.query(
                    """
                    INSERT INTO inbox_cursors (board, seq) VALUES (\(id), \(cursor))
                    ON CONFLICT (board) DO UPDATE SET seq = GREATEST(inbox_cursors.seq, EXCLUDED.seq)
                    """, logger: logger)
            }
            return stored
        }
    }

    public func inbox(user: UserID, unreadOnly: Bool, before: Int64?, limit: Int) async throws(StoreError) -> [InboxEntry] {
        let name = user.rawValue
        let below = before ?? Int64.max
        let query: PostgresQuery =
            unreadOnly
            ? """
            SELECT \(unescaped: Self.inboxColumns) FROM inbox
            WHERE username = \(name) AND id < \(below) AND read_at IS NULL ORDER BY id DESC LIMIT \(limit)
            """
            : """
            SELECT \(unescaped: Self.inboxColumns) FROM inbox
            WHERE username = \(name) AND id < \(below) ORDER BY id DESC LIMIT \(limit)
            """
        return try await inboxRows("inbox of \(user)", query)
    }

    public func inboxEntries(after id: Int64, limit: Int) async throws(StoreError) -> [InboxEntry] {
        try await inboxRows(
            "new inbox entries", "SELECT \(unescaped: Self.inboxColumns) FROM inbox WHERE id > \(id) ORDER BY id LIMIT \(limit)")
    }

    public func newestInboxID() async throws(StoreError) -> Int64 {
        let logger = self.logger
        return try await read("newest inbox id") { connection -> Int64 in
            var newest: Int64 = 0
            for try await id in try await connection.query("SELECT max(id) FROM inbox", logger: logger).decode(Int64?.self) {
                newest = id ?? 0
            }
            return newest
        }
    }

    static let inboxColumns = "id, username, board, seq, card, kind, actor, at, text, read_at"

    /// The entries a query of `inboxColumns` returns.
    private func inboxRows(_ what: String, _ query: PostgresQuery) async throws(StoreError) -> [InboxEntry] {
        typealias Row = (Int64, String, String, Int64, String?, String, String, Int64, String, Int64?)
        let logger = self.logger
        let rows = try await read(what) { connection -> [Row] in
            var rows: [Row] = []
            for try await row in try await connection.query(query, logger: logger).decode(Row.self) { rows.append(row) }
            return rows
        }
        return try rows.map { (row: Row) throws(StoreError) in
            InboxEntry(
                id: row.0, user: UserID(row.1), board: BoardID(row.2), seq: try StoreCoding.uint64(row.3, "seq"),
                card: row.4.map { CardID($0) }, kind: InboxEntry.Kind(rawValue: row.5), actor: UserID(row.6), at: Timestamp(milliseconds: row.7),
                text: row.8, read: row.9 != nil)
        }
    }

    public func unreadCount(user: UserID) async throws(StoreError) -> Int {
        let name = user.rawValue
        let logger = self.logger
        return try await read("unread count of \(user)") { connection -> Int in
            var count = 0
            for try await n in try await connection.query(
                "SELECT count(*) FROM inbox WHERE username = \(name) AND read_at IS NULL", logger: logger
            ).decode(Int64.self) {
                count = Int(n)
            }
            return count
        }
    }

    public func markInboxRead(user: UserID, ids: [Int64]?, at: Timestamp) async throws(StoreError) -> [Int64] {
        let name = user.rawValue
        let logger = self.logger
        if let ids, ids.isEmpty { return [] }
        return try await write("mark inbox read for \(user)") { connection -> [Int64] in
            let query: PostgresQuery =
                if let ids {
                    """
                    UPDATE inbox SET read_at = \(at.milliseconds)
                    WHERE username = \(name) AND read_at IS NULL AND id = ANY(\(ids)) RETURNING id
                    """
                } else {
                    """
                    UPDATE inbox SET read_at = \(at.milliseconds) WHERE username = \(name) AND read_at IS NULL RETURNING id
                    """
                }
            var marked: [Int64] = []
            for try await id in try await connection.query(query, logger: logger).decode(Int64.self) { marked.append(id) }
            return marked.sorted()
        }
    }

    public func notifySettings(user: UserID) async throws(StoreError) -> NotifySettings? {
        let name = user.rawValue
        let logger = self.logger
        let text = try await read("notify settings of \(user)") { connection -> String? in
            var found: String?
            for try await json in try await connection.query(
                "SELECT settings FROM notify_settings WHERE username = \(name)", logger: logger
            ).decode(String.self) {
                found = json
            }
            return found
        }
        return try text.map { (json: String) throws(StoreError) in try NotifySettings.decoded(json) }
    }

    public func setNotifySettings(_ settings: NotifySettings, user: UserID) async throws(StoreError) {
        let json = try settings.encoded()
        let name = user.rawValue
        let email = settings.email
        let logger = self.logger
        try await write("set notify settings of \(user)") { connection in
            try await connection.query(
                """
                INSERT INTO notify_settings (username, email, settings) VALUES (\(name), \(email), \(json))
                ON CONFLICT (username) DO UPDATE SET email = EXCLUDED.email, settings = EXCLUDED.settings
                """, logger: logger)
        }
    }

    public func mailRecipients() async throws(StoreError) -> [(user: UserID, settings: NotifySettings)] {
        let logger = self.logger
        let rows = try await read("mail recipients") { connection -> [(String, String)] in
            var rows: [(String, String)] = []
            for try await row in try await connection.query(
                "SELECT username, settings FROM notify_settings WHERE email IS NOT NULL ORDER BY username", logger: logger
            ).decode((String, String).self) {
                rows.append(row)
            }
            return rows
        }
        return try rows.map { (row: (String, String)) throws(StoreError) in (UserID(row.0), try NotifySettings.decoded(row.1)) }
    }

    public func unmailedEntries(user: UserID) async throws(StoreError) -> [InboxEntry] {
        try await inboxRows(
            "unmailed entries of \(user)",
            """
            SELECT \(unescaped: Self.inboxColumns) FROM inbox
            WHERE username = \(user.rawValue) AND read_at IS NULL AND mailed_at IS NULL ORDER BY id LIMIT 500
            """)
    }

    public func markMailed(_ ids: [Int64], at: Timestamp) async throws(StoreError) {
        guard !ids.isEmpty else { return }
        let logger = self.logger
        try await write("mark mailed") { connection in
            try await connection.query(
                "UPDATE inbox SET mailed_at = \(at.milliseconds) WHERE id = ANY(\(ids))", logger: logger)
        }
    }
}
