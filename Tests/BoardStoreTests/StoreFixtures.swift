import BoardCore
import BoardTesting
import Foundation
import GRDB
import PostgresNIO
import Logging
import Testing

@testable import BoardStore

/// Temporary directories, stores and event builders the store tests share.
enum StoreFixtures {
    /// 2026-01-01T00:00:00Z.
    static let t0: Int64 = 1_767_225_600_000

    /// A logger that drops everything (the store logs at trace/debug).
    static let logger: Logger = {
        var logger = Logger(label: "corkboard.store.tests")
        logger.logLevel = .critical
        return logger
    }()

    /// Runs `body` with a fresh directory under the temporary directory and removes it afterwards, whatever happens.
    static func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("corkboard-store-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: url) }
        return try await body(url)
    }

    /// Runs `body` with a store opened in a fresh temporary directory; closes it and removes the directory afterwards.
    static func withStore<T>(
        configuration: SQLiteStore.Configuration = SQLiteStore.Configuration(),
        _ body: (SQLiteStore, URL) async throws -> T
    ) async throws -> T {
        try await withTemporaryDirectory { directory in
            let store = try await SQLiteStore.open(
                directory: directory, configuration: configuration, logger: logger)
            do {
                let result = try await body(store, directory)
                try await store.close()
                return result
            } catch {
                try? await store.close()
                throw error
            }
        }
    }

    /// The stores the shared tests run against: SQLite always, PostgreSQL when a server is given
    /// (`$CORKD_TEST_POSTGRES`) and always under CI.
    static let kinds: [StoreKind] = PostgresTestDatabase.isEnabled ? [.sqlite, .postgres] : [.sqlite]

    /// Runs `body` with a fresh store of `kind` (SQLite in a temporary directory, PostgreSQL in a new database) and
    /// removes it afterwards. The URL is the SQLite store's directory (a scratch directory for PostgreSQL).
    static func withStore<T>(
        _ kind: StoreKind, snapshotsKept: Int = 2, _ body: (any AdminStore, URL) async throws -> T
    ) async throws -> T {
        switch kind {
        case .sqlite:
            return try await withStore(configuration: SQLiteStore.Configuration(snapshotsKept: snapshotsKept)) {
                try await body($0, $1)
            }
        case .postgres:
            return try await PostgresTestDatabase.withDatabase { location in
                try await withTemporaryDirectory { directory in
                    let store = try await PostgresStore.open(
                        location, configuration: PostgresStore.Configuration(snapshotsKept: snapshotsKept), logger: logger)
                    do {
                        let result = try await body(store, directory)
                        try await store.close()
                        return result
                    } catch {
                        try? await store.close()
                        throw error
                    }
                }
            }
        }
    }

    /// The seqs of a board's stored snapshots, ascending (read below the store's API).
    static func snapshotSeqs(_ store: any AdminStore, board: String) async throws -> [Int] {
        if let sqlite = store as? SQLiteStore {
            return try await sqlite.read("snapshots") { db in
                try Int.fetchAll(db, sql: "SELECT seq FROM snapshots WHERE board = ? ORDER BY seq", arguments: [board])
            }
        }
        let postgres = try #require(store as? PostgresStore)
        return try await postgres.read("snapshots") { connection in
            var seqs: [Int] = []
            for try await seq in try await connection.query(
                "SELECT seq FROM snapshots WHERE board = \(board) ORDER BY seq", logger: logger
            ).decode(Int.self) {
                seqs.append(seq)
            }
            return seqs
        }
    }

    /// The bytes of a file, or empty if it does not exist.
    static func bytes(_ url: URL) -> Data {
        (try? Data(contentsOf: url)) ?? Data()
    }

    /// The board file and its WAL/shared-memory companions in `directory`.
    static func databaseFiles(in directory: URL) -> [URL] {
        ["", "-wal", "-shm"].map { directory.appendingPathComponent(SQLiteStore.fileName + $0) }
    }
}

/// The store implementations the shared store tests run against.
enum StoreKind: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }
}

/// Builds a board's events by applying ops with the reducer, like the server's board actor does.
struct BoardDriver {
    /// The board after every op so far.
    var board: Board
    /// The clock for the next op.
    var now: Int64 = StoreFixtures.t0

    /// Starts from a new board `id` owned by alice, with bob as an editor.
    init(_ id: BoardID, name: String = "Board") {
        var board = Board(id: id, name: name, owner: "alice")
        board.members["bob"] = Member(id: "bob", role: .editor)
        self.board = board
    }

    /// Applies `op` (it must change the board) and returns its event.
    mutating func event(
        _ op: Op, actor: UserID = "alice", clientID: String? = nil, mut: UInt64? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> StoredEvent? {
        now += 1000
        let context = ApplyContext(
            actor: actor, role: board.members[actor]?.role ?? .owner, now: Timestamp(milliseconds: now),
            seq: board.seq + 1)
        switch board.apply(op, context: context) {
        case .success(let result) where !result.isNoop:
            return StoredEvent(
                board: board.id, seq: context.seq, at: context.now, actor: actor, clientID: clientID, mut: mut, op: op,
                activity: result.activity, inverse: result.inverse, undoOf: result.activity.undoOf)
        case .success:
            Issue.record("op \(op.kind) was a no-op", sourceLocation: sourceLocation)
            return nil
        case .failure(let rejection):
            Issue.record("op \(op.kind) was rejected: \(rejection)", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// Adds card `card` with a title.
    mutating func addCard(_ card: CardID, title: String? = nil, clientID: String? = nil, mut: UInt64? = nil)
        -> StoredEvent?
    {
        event(.addCard(AddCard(card: card, title: title ?? "Card \(card)")), clientID: clientID, mut: mut)
    }

    /// A chat message (a change with no card).
    mutating func chat(_ text: String, actor: UserID = "alice", clientID: String? = nil, mut: UInt64? = nil)
        -> StoredEvent?
    {
        event(.chat(text: text), actor: actor, clientID: clientID, mut: mut)
    }

    /// `count` events over cards c1 and c2: adds them when missing, then edits, moves and chat, chosen by seq.
    ///
    /// With `clientID`, the events carry mutation ids counting up from `firstMut`.
    mutating func workload(_ count: Int, clientID: String? = nil, firstMut: UInt64 = 1) -> [StoredEvent] {
        var events: [StoredEvent] = []
        var mut = firstMut
        while events.count < count {
            let k = board.seq + 1
            let card: CardID = k % 2 == 0 ? "c1" : "c2"
            let op: Op
            if board.cards["c1"] == nil {
                op = .addCard(AddCard(card: "c1", title: "First card"))
            } else if board.cards["c2"] == nil {
                op = .addCard(AddCard(card: "c2", title: "Second card"))
            } else {
                switch k % 5 {
                case 0: op = .chat(text: "message \(k)")
                case 1, 2: op = .editCard(EditCard(card: card, title: "Title \(k)"))
                default:
                    let column: ColumnID = board.cards[card]?.column == "todo" ? "doing" : "todo"
                    op = .moveCard(card: card, column: column, placement: .top)
                }
            }
            guard let event = event(op, clientID: clientID, mut: clientID == nil ? nil : mut) else { break }
            events.append(event)
            mut += 1
        }
        return events
    }
}
