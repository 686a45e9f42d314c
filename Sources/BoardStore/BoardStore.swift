import BoardCore

/// Durable storage for boards, their event logs, users, tokens, the admin queue and the boards' webhooks.
///
/// Every method that writes returns only once the write is durable. One actor per board sequences its ops and
/// hands batches to `submit` (the store's writer commits what every board handed over in one transaction); the store
/// checks that each board's seqs follow its head.
public protocol BoardStore: HookStore, InboxStore {
    /// Every board, archived ones included, with its head seq and epoch (start-up).
    func boards() async throws(StoreError) -> [BoardRecord]

    /// Archives a board (kept, not served) or brings it back; `notFound` if there is no such board.
    func setArchived(_ board: BoardID, _ archived: Bool, now: Timestamp) async throws(StoreError)

    /// Creates a board whose state is `board` (normally at seq 0) with a fresh random epoch; `duplicate` if it exists.
    func createBoard(_ board: Board) async throws(StoreError) -> BoardRecord

    /// The newest snapshot of a board and every event after it, in seq order (replay them with the reducer, or use
    /// `LoadedBoard.replayed()`); nil if no such board.
    func load(_ board: BoardID) async throws(StoreError) -> LoadedBoard?

    /// Appends events (of one or more boards, each board's seqs contiguous and following its head) and optional
    /// snapshots in ONE transaction; returns only when durable (WAL + `synchronous=FULL`). On any failure nothing is
    /// written (explicit ROLLBACK).
    func append(_ events: [StoredEvent], snapshots: [Board]) async throws(StoreError)

    /// `append` for changes whose JSON texts the server already encoded (from their `delta` lines): the texts are
    /// written as they are, nothing is encoded again. The same checks, the same single durable transaction.
    func append(encoded changes: [EncodedChange], snapshots: [Board]) async throws(StoreError)

    /// Hands changes to the store's one writer without waiting: they are committed as `append(encoded:)` commits
    /// them, in one durable transaction with whatever else is queued, and `done` is called once, with the outcome,
    /// when that transaction is durable or rolled back, on the writer's own thread, before the writer takes its next
    /// transaction: whatever `done` does delays every board's next commit (the server's sends a board's acks and
    /// deltas to the event loops from there, which costs about as much as building the buffers). A caller must
    /// wait for `done` before it submits again for the same board.
    func submit(
        encoded changes: [EncodedChange], snapshots: [Board], done: @escaping @Sendable (Result<Void, StoreError>) -> Void)

    /// Events with `from <= seq <= to`, ascending, at most `limit`.
    func events(_ board: BoardID, from: UInt64, to: UInt64, limit: Int) async throws(StoreError) -> [StoredEvent]

    /// Activity paging backwards: events with `seq < before` (nil = newest), optionally only those whose
    /// `activity.card == card`, newest first, at most `limit`.
    func history(_ board: BoardID, card: CardID?, before: UInt64?, limit: Int) async throws(StoreError)
        -> [StoredEvent]

    /// Exactly-once: the committed event for `(user, clientID, mut)` if it is stored.
    func committed(user: UserID, clientID: String, mut: UInt64) async throws(StoreError) -> StoredEvent?

    /// The highest mut of `(user, clientID)` committed on `board`, or nil. Exactly-once state is per client on each
    /// board: a client sending to two boards with one counter must never find an op refused on one board because of
    /// a higher mut applied on the other.
    func lastMutation(user: UserID, clientID: String, board: BoardID) async throws(StoreError) -> UInt64?

    // MARK: Users and tokens (tokens are stored only as SHA-256 hashes)

    /// Creates the user if missing; returns whether it was created.
    func ensureUser(_ user: UserID, displayName: String) async throws(StoreError) -> Bool

    /// Makes a new random token for the user (32 random bytes, base64url without padding, prefixed `ck_`), stores
    /// its hash and returns the token text, once. `notFound` if the user does not exist.
    func issueToken(for user: UserID, expiresAt: Timestamp?, now: Timestamp) async throws(StoreError) -> String

    /// Looks a presented token up by its hash: the user and whether it is expired/revoked at `now`; nil if unknown.
    func authenticate(token: String, now: Timestamp) async throws(StoreError) -> TokenCheck?

    /// Revokes every token of the user that is not revoked yet; returns how many (0: revoked already). `notFound`
    /// when there is no such user.
    func revokeTokens(of user: UserID, now: Timestamp) async throws(StoreError) -> Int

    // MARK: Admin queue
    // `corkd invite`/`revoke`/`board` may run while the server runs; they write commands here, the server (the only
    // writer of events) applies them and records each outcome, which the tool waits for.

    /// Queues a command for the server; returns its id (ids grow).
    func enqueue(_ command: AdminCommand, now: Timestamp) async throws(StoreError) -> Int64

    /// Commands not yet marked done whose id is above `id`, oldest first.
    func pendingCommands(after id: Int64) async throws(StoreError) -> [(id: Int64, command: AdminCommand)]

    /// Marks a command done so it is not handed out again; `notFound` if there is no such command.
    func markDone(_ id: Int64) async throws(StoreError)

    /// Marks commands done in one transaction, each with its failure (nil: applied).
    func finish(_ results: [(id: Int64, failure: AdminFailure?)]) async throws(StoreError)
}

extension BoardStore {
    /// `submit` for a store without a writer of its own: a task runs `append(encoded:)` and reports its outcome
    /// (each board waits for one submit before the next, so the tasks never race for one board).
    public func submit(
        encoded changes: [EncodedChange], snapshots: [Board], done: @escaping @Sendable (Result<Void, StoreError>) -> Void
    ) {
        Task {
            let result: Result<Void, StoreError>
            do throws(StoreError) {
                try await append(encoded: changes, snapshots: snapshots)
                result = .success(())
            } catch {
                result = .failure(error)
            }
            done(result)
        }
    }
}
