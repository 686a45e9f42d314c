import Foundation
import BoardCore
import GRDB

extension SQLiteStore {
    static let inboxColumnsSQL = "id, username, board, seq, card, kind, actor, at, text, read_at"

    public func inboxCursor(board: BoardID) async throws(StoreError) -> UInt64? {
        let id = board.rawValue
        let seq = try await read("inbox cursor") { db in
            try Int64.fetchOne(db, sql: "SELECT seq FROM inbox_cursors WHERE board = ?", arguments: [id])
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
        return try await write("add inbox entries of \(board)") { db in
            var stored: [InboxEntry] = []
            for (entry, seq) in rows {
                try db.execute(
                    sql: """
                        INSERT INTO inbox (username, board, seq, card, kind, actor, at, text, key)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING
                        """,
                    arguments: [
                        entry.user.rawValue, entry.board.rawValue, seq, entry.card?.rawValue, entry.kind.rawValue,
                        entry.actor.rawValue, entry.at.milliseconds, entry.text, entry.key,
                    ])
                guard db.changesCount == 1 else { continue }
                var saved = entry
                saved.id = db.lastInsertedRowID
                stored.append(saved)
            }
            if let cursor {
                try db.execute(
                    sql: """
                        INSERT INTO inbox_cursors (board, seq) VALUES (?, ?)
                        ON CONFLICT (board) DO UPDATE SET seq = max(seq, excluded.seq)
                        """,
                    arguments: [board.rawValue, cursor])
            }
            return stored
        }
    }

    public func inbox(user: UserID, unreadOnly: Bool, before: Int64?, limit: Int) async throws(StoreError) -> [InboxEntry] {
        let name = user.rawValue
        return try await read("inbox of \(user)") { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.inboxColumnsSQL) FROM inbox
                    WHERE username = ? AND id < ? \(unreadOnly ? "AND read_at IS NULL" : "")
                    ORDER BY id DESC LIMIT ?
                    """,
                arguments: [name, before ?? Int64.max, limit])
            return try rows.map { (row: Row) throws(StoreError) in try InboxEntry(row: row) }
        }
    }

    public func inboxEntries(after id: Int64, limit: Int) async throws(StoreError) -> [InboxEntry] {
        try await read("new inbox entries") { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT \(Self.inboxColumnsSQL) FROM inbox WHERE id > ? ORDER BY id LIMIT ?", arguments: [id, limit])
            return try rows.map { (row: Row) throws(StoreError) in try InboxEntry(row: row) }
        }
    }

    public func newestInboxID() async throws(StoreError) -> Int64 {
        try await read("newest inbox id") { db in try Int64.fetchOne(db, sql: "SELECT max(id) FROM inbox") ?? 0 }
    }

    public func unreadCount(user: UserID) async throws(StoreError) -> Int {
        let name = user.rawValue
        return try await read("unread count of \(user)") { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM inbox WHERE username = ? AND read_at IS NULL", arguments: [name]) ?? 0
        }
    }

    public func markInboxRead(user: UserID, ids: [Int64]?, at: Timestamp) async throws(StoreError) -> [Int64] {
        let name = user.rawValue
        return try await write("mark inbox read for \(user)") { db in
            let unread: [Int64]
            if let ids {
                guard !ids.isEmpty else { return [] }
                let marks = databaseQuestionMarks(count: ids.count)
                unread = try Int64.fetchAll(
                    db, sql: "SELECT id FROM inbox WHERE username = ? AND read_at IS NULL AND id IN (\(marks)) ORDER BY id",
                    arguments: StatementArguments([name] + ids.map { $0 as (any DatabaseValueConvertible) }))
            } else {
                unread = try Int64.fetchAll(
                    db, sql: "SELECT id FROM inbox WHERE username = ? AND read_at IS NULL ORDER BY id", arguments: [name])
            }
            for id in unread {
                try db.execute(sql: "UPDATE inbox SET read_at = ? WHERE id = ?", arguments: [at.milliseconds, id])
            }
            return unread
        }
    }
}

extension SQLiteStore {
    public func notifySettings(user: UserID) async throws(StoreError) -> NotifySettings? {
        let name = user.rawValue
        let text = try await read("notify settings of \(user)") { db in
            try String.fetchOne(db, sql: "SELECT settings FROM notify_settings WHERE username = ?", arguments: [name])
        }
        return try text.map { (json: String) throws(StoreError) in try NotifySettings.decoded(json) }
    }

    public func setNotifySettings(_ settings: NotifySettings, user: UserID) async throws(StoreError) {
        let json = try settings.encoded()
        let name = user.rawValue
        let email = settings.email
        try await write("set notify settings of \(user)") { db in
            try db.execute(
                sql: """
                    INSERT INTO notify_settings (username, email, settings) VALUES (?, ?, ?)
                    ON CONFLICT (username) DO UPDATE SET email = excluded.email, settings = excluded.settings
                    """,
                arguments: [name, email, json])
        }
    }

    public func mailRecipients() async throws(StoreError) -> [(user: UserID, settings: NotifySettings)] {
        let rows = try await read("mail recipients") { db in
            try Row.fetchAll(db, sql: "SELECT username, settings FROM notify_settings WHERE email IS NOT NULL ORDER BY username")
                .map { (row: Row) -> (String, String) in (row[0], row[1]) }
        }
        return try rows.map { (row: (String, String)) throws(StoreError) in (UserID(row.0), try NotifySettings.decoded(row.1)) }
    }

    public func unmailedEntries(user: UserID) async throws(StoreError) -> [InboxEntry] {
        let name = user.rawValue
        return try await read("unmailed entries of \(user)") { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.inboxColumnsSQL) FROM inbox
                    WHERE username = ? AND read_at IS NULL AND mailed_at IS NULL ORDER BY id LIMIT 500
                    """,
                arguments: [name])
            return try rows.map { (row: Row) throws(StoreError) in try InboxEntry(row: row) }
        }
    }

    public func markMailed(_ ids: [Int64], at: Timestamp) async throws(StoreError) {
        guard !ids.isEmpty else { return }
        try await write("mark mailed") { db in
            for id in ids {
                try db.execute(sql: "UPDATE inbox SET mailed_at = ? WHERE id = ?", arguments: [at.milliseconds, id])
            }
        }
    }
}

extension NotifySettings {
    /// The settings as stored (JSON).
    func encoded() throws(StoreError) -> String {
        do {
            return String(decoding: try JSONEncoder().encode(self), as: UTF8.self)
        } catch {
            throw StoreError(.internal, "cannot encode notify settings: \(error)")
        }
    }

    /// Stored settings; `.corrupt` when they do not decode.
    static func decoded(_ json: String) throws(StoreError) -> NotifySettings {
        do {
            return try JSONDecoder().decode(NotifySettings.self, from: Data(json.utf8))
        } catch {
            throw StoreError(.corrupt, "notify settings do not decode: \(error)")
        }
    }
}

extension InboxEntry {
    /// A row of `SQLiteStore.inboxColumnsSQL`; `.corrupt` when a column holds the wrong thing.
    init(row: Row) throws(StoreError) {
        let kind = InboxEntry.Kind(rawValue: try StoreCoding.column(row, 5) as String)
        let card: String? = try StoreCoding.column(row, 4)
        let readAt: Int64? = try StoreCoding.column(row, 9)
        self.init(
            id: try StoreCoding.column(row, 0), user: UserID(try StoreCoding.column(row, 1) as String),
            board: BoardID(try StoreCoding.column(row, 2) as String),
            seq: try StoreCoding.uint64(try StoreCoding.column(row, 3), "seq"), card: card.map { CardID($0) }, kind: kind,
            actor: UserID(try StoreCoding.column(row, 6) as String),
            at: Timestamp(milliseconds: try StoreCoding.column(row, 7)), text: try StoreCoding.column(row, 8),
            read: readAt != nil)
    }
}
