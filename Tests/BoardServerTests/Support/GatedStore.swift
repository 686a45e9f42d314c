import BoardTesting
import BoardCore
import BoardStore
import Synchronization

/// A gate a test opens by hand: `wait()` suspends until `open()`; `entered()` waits until someone is waiting.
actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var arrivals: [CheckedContinuation<Void, Never>] = []
    private(set) var arrived = 0

    func wait() async {
        arrived += 1
        for arrival in arrivals { arrival.resume() }
        arrivals = []
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func entered() async {
        if arrived > 0 { return }
        await withCheckedContinuation { arrivals.append($0) }
    }

    init(open: Bool = false) { isOpen = open }

    /// A gate that is open from the start.
    static var opened: Gate { Gate(open: true) }

    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}

/// How many more times a store call fails before it works again.
actor FailureBudget {
    private var remaining: Int
    init(_ failures: Int) { remaining = failures }
    /// Adds `failures` more.
    func plant(_ failures: Int) { remaining += failures }
    /// True (and one fewer left) while failures remain.
    func take() -> Bool {
        guard remaining > 0 else { return false }
        remaining -= 1
        return true
    }
}

/// Commits whose answer is lost, as when the database goes away during `COMMIT` (PostgreSQL): the next `append`
/// writes (`landed`) or not, then fails with `.io` marked `outcomeUnknown`; reads fail with `.io` until `reachable()`.
actor LostCommits {
    private var next: Bool?
    private var isReachable = true
    private(set) var lost = 0

    /// The next append's answer is lost; it is written first when `landed`. Reads fail until `reachable()`.
    func loseNext(landed: Bool) {
        next = landed
        isReachable = false
    }

    /// The database answers again.
    func reachable() { isReachable = true }

    /// For an append: nil to write it as usual, or whether to write it before the lost answer.
    func take() -> Bool? {
        defer { next = nil }
        if next != nil { lost += 1 }
        return next
    }

    /// Throws `.io` while the database is away.
    func read() throws(StoreError) {
        if !isReachable { throw StoreError(.io, "events: cannot reach the database (planted)") }
    }
}

/// How many times a store call was made.
actor CallCounter {
    private(set) var count = 0
    func add() { count += 1 }
}

/// Gates for the store's exactly-once reads, one per call in order: a call reads first, then waits at its gate
/// before it answers (so what it read may be stale by then). Calls beyond the last gate answer at once.
actor ReadGates {
    private var gates: [Gate]
    init(_ gates: [Gate]) { self.gates = gates }
    func next() -> Gate? { gates.isEmpty ? nil : gates.removeFirst() }
}

/// A real SQLite store whose `append` waits at a gate: the test decides when a commit finishes. `finish` fails as
/// often as `finishFailures` says (a disk that refused one write).
/// Something a test does in the middle of a store call, set after the store is made.
final class StoreHook: Sendable {
    private let action = Mutex<(@Sendable (BoardID, Bool) async -> Void)?>(nil)
    func set(_ action: @escaping @Sendable (BoardID, Bool) async -> Void) { self.action.withLock { $0 = action } }
    func run(_ board: BoardID, _ flag: Bool) async { await action.withLock { $0 }?(board, flag) }
}

/// A store shared by several nodes as far as a board's record goes (``SharedStore/boardRecord(_:)``): no leases and
/// no admin queue.
struct RecordsOnlyShared: SharedStore {
    let inner: SQLiteStore
    func takeLease(_ name: LeaseName) async throws(StoreError) -> (any Lease)? { nil }
    func newestCommandID() async throws(StoreError) -> Int64 { 0 }
    func commands(after id: Int64, limit: Int) async throws(StoreError) -> [AdminLogEntry] { [] }
    func boardRecord(_ id: BoardID) async throws(StoreError) -> BoardRecord? { try await inner.boards().first { $0.id == id } }
}

struct GatedStore: BoardStore {
    let inner: SQLiteStore
    let gate: Gate
    var finishFailures = FailureBudget(0)
    var lostCommits: LostCommits?
    var readGates: ReadGates?
    /// Appends that fail with `.full` (nothing written) before appends work again.
    var appendFailures = FailureBudget(0)
    /// Counts the reads of stored changes (`events`).
    var eventReads = CallCounter()
    /// Runs after each archive or unarchive is stored, before the caller hears of it.
    var afterSetArchived: StoreHook?

    func append(_ events: [StoredEvent], snapshots: [Board]) async throws(StoreError) {
        await gate.wait()
        try await inner.append(events, snapshots: snapshots)
    }

    func append(encoded changes: [EncodedChange], snapshots: [Board]) async throws(StoreError) {
        await gate.wait()
        if await appendFailures.take() { throw StoreError(.full, "database or disk is full (planted)") }
        if let landed = await lostCommits?.take() {
            if landed { try await inner.append(encoded: changes, snapshots: snapshots) }
            throw StoreError(.io, "append: the database connection failed (planted)").withOutcomeUnknown()
        }
        try await inner.append(encoded: changes, snapshots: snapshots)
    }

    func boards() async throws(StoreError) -> [BoardRecord] { try await inner.boards() }
    func addHook(_ hook: HookRecord, maxPerBoard: Int) async throws(StoreError) -> Bool {
        try await inner.addHook(hook, maxPerBoard: maxPerBoard)
    }
    func hooks(board: BoardID?) async throws(StoreError) -> [HookRecord] { try await inner.hooks(board: board) }
    func removeHook(_ id: String, board: BoardID) async throws(StoreError) -> Bool { try await inner.removeHook(id, board: board) }
    func updateHook(_ id: String, state: HookState) async throws(StoreError) { try await inner.updateHook(id, state: state) }
    func inboxCursor(board: BoardID) async throws(StoreError) -> UInt64? { try await inner.inboxCursor(board: board) }
    func addInboxEntries(_ entries: [InboxEntry], board: BoardID, through seq: UInt64?) async throws(StoreError) -> [InboxEntry] {
        try await inner.addInboxEntries(entries, board: board, through: seq)
    }
    func inboxEntries(after id: Int64, limit: Int) async throws(StoreError) -> [InboxEntry] {
        try await inner.inboxEntries(after: id, limit: limit)
    }
    func newestInboxID() async throws(StoreError) -> Int64 { try await inner.newestInboxID() }
    func inbox(user: UserID, unreadOnly: Bool, before: Int64?, limit: Int) async throws(StoreError) -> [InboxEntry] {
        try await inner.inbox(user: user, unreadOnly: unreadOnly, before: before, limit: limit)
    }
    func unreadCount(user: UserID) async throws(StoreError) -> Int { try await inner.unreadCount(user: user) }
    func notifySettings(user: UserID) async throws(StoreError) -> NotifySettings? { try await inner.notifySettings(user: user) }
    func setNotifySettings(_ settings: NotifySettings, user: UserID) async throws(StoreError) {
        try await inner.setNotifySettings(settings, user: user)
    }
    func mailRecipients() async throws(StoreError) -> [(user: UserID, settings: NotifySettings)] { try await inner.mailRecipients() }
    func unmailedEntries(user: UserID) async throws(StoreError) -> [InboxEntry] { try await inner.unmailedEntries(user: user) }
    func markMailed(_ ids: [Int64], at: Timestamp) async throws(StoreError) { try await inner.markMailed(ids, at: at) }
    func markInboxRead(user: UserID, ids: [Int64]?, at: Timestamp) async throws(StoreError) -> [Int64] {
        try await inner.markInboxRead(user: user, ids: ids, at: at)
    }
    func createBoard(_ board: Board) async throws(StoreError) -> BoardRecord { try await inner.createBoard(board) }
    func load(_ board: BoardID) async throws(StoreError) -> LoadedBoard? { try await inner.load(board) }
    func events(_ board: BoardID, from: UInt64, to: UInt64, limit: Int) async throws(StoreError) -> [StoredEvent] {
        try await lostCommits?.read()
        await eventReads.add()
        return try await inner.events(board, from: from, to: to, limit: limit)
    }
    func history(_ board: BoardID, card: CardID?, before: UInt64?, limit: Int) async throws(StoreError) -> [StoredEvent] {
        try await inner.history(board, card: card, before: before, limit: limit)
    }
    func committed(user: UserID, clientID: String, mut: UInt64) async throws(StoreError) -> StoredEvent? {
        let event = try await inner.committed(user: user, clientID: clientID, mut: mut)
        await readGates?.next()?.wait()
        return event
    }
    func lastMutation(user: UserID, clientID: String, board: BoardID) async throws(StoreError) -> UInt64? {
        let last = try await inner.lastMutation(user: user, clientID: clientID, board: board)
        await readGates?.next()?.wait()
        return last
    }
    func ensureUser(_ user: UserID, displayName: String) async throws(StoreError) -> Bool {
        try await inner.ensureUser(user, displayName: displayName)
    }
    func issueToken(for user: UserID, expiresAt: Timestamp?, now: Timestamp) async throws(StoreError) -> String {
        try await inner.issueToken(for: user, expiresAt: expiresAt, now: now)
    }
    func authenticate(token: String, now: Timestamp) async throws(StoreError) -> TokenCheck? {
        try await inner.authenticate(token: token, now: now)
    }
    func revokeTokens(of user: UserID, now: Timestamp) async throws(StoreError) -> Int {
        try await inner.revokeTokens(of: user, now: now)
    }
    func enqueue(_ command: AdminCommand, now: Timestamp) async throws(StoreError) -> Int64 {
        try await inner.enqueue(command, now: now)
    }
    func pendingCommands(after id: Int64) async throws(StoreError) -> [(id: Int64, command: AdminCommand)] {
        try await inner.pendingCommands(after: id)
    }
    func markDone(_ id: Int64) async throws(StoreError) { try await inner.markDone(id) }
    func finish(_ results: [(id: Int64, failure: AdminFailure?)]) async throws(StoreError) {
        if await finishFailures.take() { throw StoreError(.io, "disk I/O error (planted)") }
        try await inner.finish(results)
    }
    func setArchived(_ board: BoardID, _ archived: Bool, now: Timestamp) async throws(StoreError) {
        try await inner.setArchived(board, archived, now: now)
        await afterSetArchived?.run(board, archived)
    }
}
