import BoardCore
import Foundation
import PostgresNIO
import Testing

@testable import BoardStore

/// Encode once: the server hands the store each change with the JSON texts of its `delta` line, and the
/// store writes those texts as they are.
@Suite("Store (SQLite and PostgreSQL) appends of encoded changes")
struct StoreEncodedAppendTests {
    @Test("append(encoded:) stores the texts it is given and reads the changes back", arguments: StoreFixtures.kinds)
    func encodedTextsAreStoredAsGiven(kind: StoreKind) async throws {
        try await StoreFixtures.withStore(kind) { store, _ in
            var driver = BoardDriver("main")
            _ = try await store.createBoard(driver.board)
            let events = driver.workload(12)
            let encoder = StoreCoding.makeEncoder()
            // Keys in another order than the store's own encoder writes them: only the texts given can produce this.
            let changes = try events.map { event in
                EncodedChange(
                    event: event, op: try Self.reversed(StoreCoding.json(event.op, encoder, "op")),
                    activity: try Self.reversed(StoreCoding.json(event.activity, encoder, "activity")),
                    inverse: try event.inverse.map { try Self.reversed(StoreCoding.json($0, encoder, "inverse")) })
            }
            try await store.append(encoded: changes, snapshots: [])
            #expect(try await store.events("main", from: 1, to: 100, limit: 100) == events)
            #expect(try await store.rawOp("main", seq: 3) == changes[2].op)
            // Checked like any append: a change that does not follow the head writes nothing.
            var later = driver.workload(2)
            later.removeFirst()
            await #expect(throws: StoreError.self) {
                try await store.append(
                    encoded: later.map { EncodedChange(event: $0, op: changes[0].op, activity: changes[0].activity, inverse: nil) },
                    snapshots: [])
            }
            #expect(try await store.events("main", from: 13, to: 100, limit: 100).isEmpty)
        }
    }

    /// `text` (a JSON object) with its top-level members in reverse order.
    static func reversed(_ text: String) throws -> String {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let members = try object.keys.sorted().reversed().map { key in
            let value = try JSONSerialization.data(withJSONObject: object[key]!, options: [.fragmentsAllowed, .sortedKeys])
            return "\"\(key)\":" + String(decoding: value, as: UTF8.self)
        }
        return "{" + members.joined(separator: ",") + "}"
    }
}

extension AdminStore {
    /// Testing: the `op` column of one stored event, as text.
    func rawOp(_ board: String, seq: Int64) async throws -> String? {
        switch self {
        case let sqlite as SQLiteStore:
            return try await sqlite.read("raw op") { db in
                try String.fetchOne(db, sql: "SELECT op FROM events WHERE board = ? AND seq = ?", arguments: [board, seq])
            }
        case let postgres as PostgresStore:
            return try await postgres.read("raw op") { connection in
                var text: String?
                for try await value in try await connection.query(
                    "SELECT op FROM events WHERE board = \(board) AND seq = \(seq)", logger: StoreFixtures.logger
                ).decode(String.self) {
                    text = value
                }
                return text
            }
        default:
            return nil
        }
    }
}
