import BoardCore
import BoardServer
import BoardStore
import BoardTesting
import Foundation
import Logging
import Testing

/// `corkd migrate-store`: a SQLite store copied into PostgreSQL through the store protocols.
@Suite(.enabled(if: PostgresTestDatabase.isEnabled), .startsProcesses(within: .minutes(2)))
struct StoreMigrationTests {
    static let logger: Logger = {
        var logger = Logger(label: "corkd-test")
        logger.logLevel = .critical
        return logger
    }()

    @Test("a board with every kind of content, users and tokens round-trip SQLite → PostgreSQL with equal hashes")
    func roundTrip() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("corkd-migrate-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let sqlite = try await SQLiteStore.open(directory: directory, logger: Self.logger)
        let now = Timestamp(milliseconds: 1_795_000_000_000)
        var tokens: [String: String] = [:]
        for user in ["alice", "bob", "carol", "dave", "robot"] {
            _ = try await sqlite.ensureUser(UserID(user), displayName: user.capitalized)
            tokens[user] = try await sqlite.issueToken(for: UserID(user), expiresAt: user == "dave" ? Timestamp(milliseconds: now.milliseconds + 60_000) : nil, now: now)
        }
        _ = try await sqlite.ensureAdministrator("alice")
        _ = try await sqlite.revokeTokens(of: "carol", now: now)
        var main = RichBoard("main")
        _ = try await sqlite.createBoard(main.board)
        let events = main.everything()
        #expect(events.count > 30, "the fixture makes a rich board")
        // Snapshots along the way, so the oldest (seq 0) is pruned: the copy must not need it.
        for (index, chunk) in stride(from: 0, to: events.count, by: 10).map({ Array(events[$0..<min($0 + 10, events.count)]) }).enumerated() {
            let snapshot = main.states[chunk.last!.seq]!
            try await sqlite.append(chunk, snapshots: index % 2 == 1 ? [snapshot] : [])
        }
        var old = RichBoard("old")
        _ = try await sqlite.createBoard(old.board)
        try await sqlite.append(Array(old.everything().prefix(5)), snapshots: [])
        try await sqlite.setArchived("old", true, now: now)
        // Webhooks: one mid-way through the log and failing, one fresh.
        let failing = HookRecord(
            id: "h-1", board: "main", url: "https://hooks.example.com/a", events: ["card.*"], query: "label:incident", secret: "s1",
            createdBy: "alice", createdAt: now,
            state: HookState(delivered: 7, failures: 3, failingSince: now, failing: true, lastError: "HTTP 503", lastAttemptAt: now))
        let fresh = HookRecord(
            id: "h-2", board: "main", url: "https://hooks.example.com/b", events: ["*"], secret: "s2", createdBy: "alice",
            createdAt: Timestamp(milliseconds: now.milliseconds + 1), state: HookState(delivered: 0))
        for hook in [failing, fresh] {
            #expect(try await sqlite.addHook(hook, maxPerBoard: 10))
            try await sqlite.updateHook(hook.id, state: hook.state)
        }
        let sourceHooks = try await sqlite.hooks(board: nil)
        #expect(sourceHooks.map(\.id) == ["h-1", "h-2"])
        let sourceRecords = try await sqlite.boards()
        let sourceHash = try #require(try await sqlite.load("main")?.replayed()).contentHash
        try await sqlite.close()

        try await PostgresTestDatabase.withDatabase { location in
            let report = try await StoreMigration.copy(fromDirectory: directory, to: location, now: now, logger: Self.logger)
            #expect(report.boards == 2 && report.users == 5 && report.tokens == 5 && report.hooks == 2)
            #expect(report.events == events.count + 5)
            #expect(report.hashes["main"] == sourceHash)

            let postgres = try await PostgresStore.open(location, logger: Self.logger)
            #expect(try await postgres.boards().sorted { $0.id.rawValue < $1.id.rawValue } == sourceRecords.sorted { $0.id.rawValue < $1.id.rawValue })
            let copied = try #require(try await postgres.load("main")?.replayed())
            #expect(copied.contentHash == sourceHash)
            #expect(copied == main.board, "the replayed copy is the board the ops made")
            #expect(Set(copied.members.values.map(\.role)) == Set(Role.allCases), "members of every role")
            // Tokens keep working (and stay revoked or expiring); the administrator stays the administrator.
            #expect(try await postgres.authenticate(token: tokens["bob"]!, now: now)?.user == "bob")
            let carol = try #require(try await postgres.authenticate(token: tokens["carol"]!, now: now))
            #expect(carol.user == "carol" && carol.revoked)
            #expect(try await postgres.authenticate(token: tokens["dave"]!, now: Timestamp(milliseconds: now.milliseconds + 120_000))?.expired == true)
            #expect(try await postgres.ensureAdministrator("bob") == false)
            // Webhooks come across with their secrets, cursors and failure state.
            #expect(try await postgres.hooks(board: nil) == sourceHooks)
            // Exactly-once marks come across with the events.
            #expect(try await postgres.lastMutation(user: "bob", clientID: "bob-laptop", board: "main") == main.lastMut)
            #expect(try await postgres.committed(user: "bob", clientID: "bob-laptop", mut: 1) != nil)
            try await postgres.close()

            // A second copy into the now non-empty database is refused and changes nothing.
            let error = await #expect(throws: ServerError.self) {
                _ = try await StoreMigration.copy(fromDirectory: directory, to: location, now: now, logger: Self.logger)
            }
            #expect(error?.code == .configuration && error?.message.contains("not empty") == true, "\(String(describing: error))")
        }
    }
}

/// Builds a board with every kind of content by applying ops with the reducer, as the server would.
struct RichBoard {
    var board: Board
    var states: [UInt64: Board] = [:]
    var events: [StoredEvent] = []
    var lastMut: UInt64 = 0
    var now: Int64 = 1_795_000_000_000

    init(_ id: BoardID) {
        board = Board(id: id, name: "Board \(id)", owner: "alice")
    }

    /// Applies `op` as `actor` (bob's ops carry a client id and mut) and records the event.
    mutating func apply(_ op: Op, actor: UserID = "alice") {
        now += 1000
        let seq = board.seq + 1
        let context = ApplyContext(actor: actor, role: .owner, now: Timestamp(milliseconds: now), seq: seq)
        guard case .success(let change) = board.apply(op, context: context), !change.isNoop else {
            Issue.record("op \(op.kind) did not apply")
            return
        }
        let mut: UInt64? = actor == "bob" ? lastMut + 1 : nil
        if let mut { lastMut = mut }
        events.append(
            StoredEvent(
                board: board.id, seq: seq, at: context.now, actor: actor, clientID: mut == nil ? nil : "bob-laptop",
                mut: mut, op: op, activity: change.activity, inverse: change.inverse, undoOf: change.activity.undoOf))
        states[seq] = board
    }

    /// Members of every role, columns with WIP limits, labels, a milestone, cards with labels, due dates,
    /// assignees, checklists and comments, an archived and a closed card, a chat line; returns the events.
    mutating func everything() -> [StoredEvent] {
        apply(.setMember(user: "bob", role: .editor, name: "Bob"))
        apply(.setMember(user: "carol", role: .viewer, name: nil))
        apply(.setMember(user: "robot", role: .bot, name: "Robot"))
        // Boards start with todo, doing and done (Board.defaultColumns); two more, one of them placed first.
        apply(.addColumn(column: "review", name: "Review", index: nil))
        apply(.addColumn(column: "ideas", name: "Ideas", index: 0))
        apply(.setWIPLimit(column: "doing", limit: WIPLimit(limit: 3, hard: true)))
        apply(.setWIPLimit(column: "todo", limit: WIPLimit(limit: 10, hard: false)))
        apply(.createLabel(label: "bug", name: "Bug", color: HexColor("#ff0000")!))
        apply(.createLabel(label: "ux", name: "UX", color: HexColor("#00ff00")!))
        apply(.createMilestone(milestone: "v1", title: "Version 1", description: "first", due: Day("2026-12-01")))
        for index in 1...6 {
            let card = CardID("c\(index)")
            apply(
                .addCard(
                    AddCard(
                        card: card, column: "todo", title: "Card \(index)", description: "About \(index) — ünïcode ✓",
                        due: index % 2 == 0 ? Day("2026-12-0\(index)") : nil, labels: index % 3 == 0 ? ["bug"] : [],
                        milestone: index < 3 ? "v1" : nil)),
                actor: index % 2 == 0 ? "bob" : "alice")
            apply(.addLabel(card: card, label: "ux"), actor: "bob")
            apply(.addChecklistItem(card: card, item: ChecklistItemID("i\(index)"), text: "step \(index)", done: index % 2 == 0, index: nil))
            apply(.addComment(card: card, comment: CommentID("m\(index)"), text: "comment on \(index)"), actor: "bob")
        }
        apply(.assign(card: "c1", user: "bob"))
        apply(.moveCard(card: "c1", column: "doing", placement: .top))
        apply(.moveCard(card: "c2", column: "done", placement: .bottom))
        apply(.editCard(EditCard(card: "c3", title: "Card three", due: .set(Day("2027-01-15")!))))
        apply(.editChecklistItem(card: "c3", item: "i3", text: nil, done: true))
        apply(.editComment(card: "c3", comment: "m3", text: "edited comment"), actor: "bob")
        apply(.closeCard(card: "c2"))
        apply(.archiveCard(card: "c4"))
        apply(.closeMilestone(milestone: "v1"))
        apply(.chat(text: "hello"))
        apply(.renameBoard(name: "Renamed \(board.id)"))
        return events
    }
}
