import BoardCore
import BoardStore
import BoardWire
import Logging
import NIOCore

/// Owns one board: its state, its seq, its subscribers and presence (STYLE.md 4).
///
/// Ops are applied to `head` at once, in arrival order, by the pure reducer, and handed straight to the store's one
/// writer (`BoardStore.submit`), which commits whatever every board handed over in one transaction; while this
/// board's batch is in the writer, what it applies waits in `pending` and is handed over the moment that batch is
/// answered. Only after a batch is durable are its acks sent and its deltas fanned out, each delta encoded once and
/// the same bytes written to every subscriber: by the writer itself, on its thread, through `publication` (the board
/// settles its own state afterwards, in `run()`). If a batch fails, nothing of it — nor anything applied on top of it
/// since — is acknowledged: `head` returns to the last durable board and those ops are rejected with the store's code.
actor BoardActor {
    let id: BoardID
    let epoch: String
    let store: any BoardStore
    let configuration: ServerConfiguration
    let clock: any ServerClock
    let logger: Logger

    /// Every op applied, durable or not.
    var head: Board
    /// The board as of the last durable change: what snapshots and `subscribed` report.
    var committed: Board
    /// Recent committed deltas, encoded.
    var log: DeltaLog
    /// Applied, not yet handed to the store.
    var pending: [Pending] = []
    /// The batch the store is writing now (a resend of one of its ops must attach to it, never apply again).
    var inFlight: [Pending] = []
    /// The board as of the end of `inFlight`, and whether its snapshot is written with it.
    var inFlightEnd: (board: Board, snapshot: Bool)?
    /// When the batch in flight was handed to the writer (for the commit latency metric).
    var inFlightStarted: ContinuousClock.Instant?
    /// The highest committed mutation per client.
    var lastMut: [ClientKey: UInt64] = [:]
    /// The highest mutation per client in `pending` or `inFlight` (so a resend is found without scanning every op).
    var pendingMut: [ClientKey: UInt64] = [:]
    /// The mutations an op of `submit` is reading the store about (its `await`s let other ops in): a commit of the
    /// same mutation meanwhile is noted here, so the op is answered with that ack instead of being applied again.
    var storeReads: [Mutation: StoreRead] = [:]
    var subscribers: [SessionID: SessionRef] = [:]
    /// The same subscribers, grouped by event loop for the fan-out, and the batch in flight: the store's writer
    /// publishes it from there the moment it is durable.
    nonisolated let publication: BoardPublication
    var presence = PresenceTable()
    /// When each session last said what it is doing (milliseconds), for `presence_timeout_ms`.
    var presenceUpdated: [SessionID: Int64] = [:]
    /// Drag positions the presence rate dropped: the newest per session, sent once the rate allows unless a newer
    /// update goes out first (the next position supersedes the dropped ones, so the last one must reach the others).
    var heldDrags: [SessionID: ServerMessage.PresenceEntry] = [:]
    /// The sessions in `presence` that are another node's (PostgreSQL: ``PresenceRelay``); their node times their
    /// states out and says when they leave.
    var remotePresent: Set<SessionID> = []
    /// Seqs since the last stored snapshot.
    var sinceSnapshot: UInt64 = 0
    /// Whether a batch is in the store's writer.
    var committing = false
    /// The number of the last batch handed to the writer: its answer carries it, so an answer to a batch the board
    /// has settled already (`settleIfPublished`) is told from the answer to the next one.
    var batchNumber: UInt64 = 0
    /// Whether `stop()` was called: `run()` returns once nothing is pending or being written.
    var stopping = false
    /// `run()` has returned after a final `stop` (a shutdown): nobody hears the writer any more, so nothing new may
    /// be applied (a session still open during a shutdown would wait forever for its ack, and `drained()` for the
    /// commit).
    var runEnded = false
    /// A final `stop` arrived.
    var stopsForGood = false
    /// Callers of `drained()` waiting for every pending change to be durable and answered.
    var drainWaiters: [CheckedContinuation<Void, Never>] = []
    /// Each user's op token bucket on this board (`rate_ops_per_s`, `rate_burst`).
    var rateBuckets: [UserID: TokenBucket] = [:]
    /// Each session's current run of rate limiting on this board (`rate_close_ms`).
    var rateRuns: [SessionID: RateLimitRun] = [:]
    /// The stored changes the log holds but has not read yet (`loadRetained`).
    var unloaded: ClosedRange<UInt64>?
    /// The read of `unloaded` under way.
    var loadingRetained: Task<Void, Never>?
    /// Whether the board stopped being served here (archived): every request is answered as for a missing board.
    var isClosed = false
    /// The board hash of `committed` at a seq, for `subscribed` (computed at most once per seq).
    var hashCache: (seq: UInt64, hash: String)?
    /// The JSON of `committed` at a seq, for `snapshot` lines (encoded at most once per seq).
    var snapshotCache: (seq: UInt64, state: [UInt8])?
    /// Presence lines (joins, changes, leaves) waiting for the next presence flush, each with the session it is
    /// about (which does not get it).
    var presenceQueue: [(line: ByteBuffer, about: SessionID?)] = []
    /// Whether a presence flush is scheduled.
    var presenceFlushScheduled = false
    /// The highest head announced for this board (another node's commit, or this node's own) that `committed` has
    /// not reached yet, or `.max` when the board must check (the LISTEN connection was re-established); caught up
    /// once no batch is in the writer (`catchUpIfBehind`).
    var noticedHead: UInt64?
    /// How many times in a row the batch in flight found the head moved and was caught up and written again.
    var headMovedRetries = 0
    /// Whether the batch in flight may be stored or not: the database connection was lost while it was being
    /// committed (`commitOutcomeUnknown`). Until a read of the store says which, new ops are refused (retryable).
    var unresolved = false
    /// Whether the next read for the unresolved batch is scheduled.
    var resolveScheduled = false
    /// Server changes (the admin queue's ops) that a catch-up moved to another seq, made a no-op or refused, by the
    /// seq `applyForAdmin` first gave them (what the admin poller asks `adminChange(at:)` about).
    var serverChanges: [UInt64: ServerChangeFate] = [:]

    /// The store writer's answers (and `stop()`), in the order they were given; `run()` handles them.
    let outcomes: AsyncStream<Outcome>.Continuation
    private let outcomeStream: AsyncStream<Outcome>

    /// What `run()` is told.
    enum Outcome: Sendable {
        /// The store writer finished batch `batch`.
        case written(Result<Void, StoreError>, batch: UInt64)
        /// The shared store announced that the board's head is at this seq (nil: check, announcements were lost).
        case noticed(UInt64?)
        /// Time to read the store again for the unresolved batch (`commitOutcomeUnknown`).
        case resolve
        /// `stop()`; `final` when the server is shutting down (see `runEnded`).
        case stop(final: Bool)
    }

    /// Exactly-once delivery is keyed by user and client id.
    struct ClientKey: Hashable {
        var user: UserID
        var client: ClientID
    }

    /// A change applied to `head` and waiting for the store: the event, its `delta` line and the texts the store
    /// keeps, all from one encoding (`LineWriter.storedDelta`).
    struct Pending {
        var change: EncodedChange
        /// The `delta` line every subscriber gets once the change is durable.
        var line: [UInt8]
        var origin: SessionRef?
        /// Sessions that sent the same mutation again while it waited here: each line gets its own answer.
        var resentBy: [SessionRef] = []
        /// For an undo: the change it undoes (its activity and inverse), so a catch-up can apply it again.
        var undoTarget: (activity: Activity, inverse: Op?)?

        /// Encodes `event` once: its `delta` line, and the store's op and activity texts taken from that line.
        init(_ event: StoredEvent, origin: SessionRef?, undoTarget: (activity: Activity, inverse: Op?)? = nil) {
            let delta = LineWriter.storedDelta(
                board: event.board, seq: event.seq, at: event.at, actor: event.actor,
                clientID: event.clientID.map { ClientID($0) }, mut: event.mut, op: event.op, activity: event.activity)
            change = EncodedChange(
                event: event, op: delta.op, activity: delta.activity, inverse: event.inverse.map(LineWriter.opJSON))
            line = delta.line
            self.origin = origin
            self.undoTarget = undoTarget
        }

        /// The change as applied.
        var event: StoredEvent { change.event }

        /// Every session owed an answer for it: the origin, then each resend.
        var answerees: [SessionRef] { (origin.map { [$0] } ?? []) + resentBy }

        /// Its entry in the batch the writer publishes.
        var entry: BoardPublication.Entry {
            BoardPublication.Entry(seq: event.seq, mut: event.mut, line: line, origin: origin, resentBy: resentBy)
        }

        /// Whether the change takes a member off the board (their subscriptions end when it commits).
        var removesMember: Bool {
            if case .removeMember = event.op { return true }
            return false
        }
    }

    /// Loads a board: the stored snapshot plus the replayed tail, and the recent log for resumes.
    static func load(
        _ id: BoardID, store: any BoardStore, configuration: ServerConfiguration, clock: any ServerClock, logger: Logger
    ) async throws -> BoardActor {
        let stored: LoadedBoard?
        do {
            stored = try await store.load(id)
        } catch {
            guard error.code == .corrupt else { throw error }
            throw ServerError(.damaged, "board \(id) cannot be read: \(error.message)")
        }
        guard let loaded = stored else {
            throw ServerError(.damaged, "board \(id) is listed but has no snapshot")
        }
        var board = loaded.snapshot
        for event in loaded.tail {
            let context = ApplyContext(actor: event.actor, role: .owner, now: event.at, seq: event.seq)
            if case .failure(let rejection) = board.apply(event.op, context: context) {
                throw ServerError(
                    .damaged, "the stored log of board \(id) does not replay at seq \(event.seq): \(rejection)")
            }
        }
        let actor = BoardActor(
            id: id, epoch: loaded.epoch, board: board, store: store, configuration: configuration, clock: clock,
            logger: logger)
        await actor.startLog(at: board.seq, sinceSnapshot: UInt64(loaded.tail.count))
        return actor
    }

    init(
        id: BoardID, epoch: String, board: Board, store: any BoardStore, configuration: ServerConfiguration,
        clock: any ServerClock, logger: Logger
    ) {
        self.id = id
        self.epoch = epoch
        self.head = board
        self.committed = board
        self.store = store
        self.configuration = configuration
        self.clock = clock
        var logger = logger
        logger[metadataKey: "board"] = "\(id)"
        self.logger = logger
        self.publication = BoardPublication(board: id)
        self.log = DeltaLog(capacity: configuration.limits.historyMax, byteCapacity: configuration.limits.historyBytes)
        (outcomeStream, outcomes) = AsyncStream.makeStream(of: Outcome.self, bufferingPolicy: .unbounded)
    }

    /// A loaded board's log starts empty: its last `history_max` stored changes (up to `seq`) are read from the
    /// store the first time a resume or a fetch needs them (`loadRetained`), so start-up reads no history at all
    /// (issue 14, defect 7: start time no longer grows with the log).
    private func startLog(at seq: UInt64, sinceSnapshot: UInt64) {
        let capacity = UInt64(configuration.limits.historyMax)
        unloaded = seq == 0 ? nil : (seq >= capacity ? seq - capacity + 1 : 1)...seq
        self.sinceSnapshot = sinceSnapshot
    }

    /// Reads the stored changes the log has not loaded yet into it (once; concurrent callers wait for the same
    /// read). On a store error the log stays as it is: a resume from before it gets a snapshot.
    func loadRetained() async {
        guard let range = unloaded else { return }
        if let loading = loadingRetained { return await loading.value }
        let loading = Task {
            let limit = Int(range.upperBound - range.lowerBound + 1)
            let events = (try? await store.events(id, from: range.lowerBound, to: range.upperBound, limit: limit)) ?? []
            log.prepend(events.map {
                DeltaLog.Entry(seq: $0.seq, line: Self.deltaLine($0), activity: $0.activity, inverse: $0.inverse)
            })
            unloaded = nil
            loadingRetained = nil
        }
        loadingRetained = loading
        await loading.value
    }

    /// Settles each batch the store writer finishes (the writer has sent its acks and deltas; on failure, the
    /// rejects) until `stop()`; then until what is left is durable and answered, and returns.
    func run() async {
        for await outcome in outcomeStream {
            switch outcome {
            case .written(let result, let batch): await written(result, batch: batch)
            case .noticed(let seq): await catchUpIfBehind(seq)
            case .resolve:
                resolveScheduled = false
                if unresolved { await catchUp() }
            case .stop(let final):
                stopping = true
                if final { stopsForGood = true }
            }
            if stopping && pending.isEmpty && !committing { break }
        }
        runEnded = stopsForGood
        resumeDrainWaiters()
        await snapshotAtStop()
    }

    /// A clean stop stores a snapshot of the durable board when changes were committed since the last one, so the
    /// next start replays no tail (issue 14, defect 7). After a crash the tail is at most `snapshotInterval` long.
    private func snapshotAtStop() async {
        guard sinceSnapshot > 0, !isClosed else { return }
        do {
            try await store.append([], snapshots: [committed])
            sinceSnapshot = 0
        } catch {
            logger.warning("no snapshot at stop; the next start replays the tail", metadata: ["error": "\(error)"])
        }
    }

    /// Returns once every change applied so far is durable and its ack and delta are written to the outboxes.
    func drained() async {
        if runEnded || (pending.isEmpty && !committing) { return }
        await withCheckedContinuation { drainWaiters.append($0) }
    }

    func resumeDrainWaiters() {
        guard pending.isEmpty, !committing else { return }
        let waiters = drainWaiters
        drainWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    /// Ends `run()` once everything pending is durable.
    ///
    /// `final`: the server is shutting down, and once `run()` has returned the board refuses new ops
    /// (`storage_busy`) instead of applying what nobody would acknowledge.
    nonisolated func stop(final: Bool = false) { outcomes.yield(.stop(final: final)) }

    /// The shared store announced the board's head at `seq` (nil: announcements may have been lost, check): if that
    /// is beyond what this node has, the board reads the missing changes and fans them out (`catchUpIfBehind`).
    nonisolated func noticed(head seq: UInt64?) { outcomes.yield(.noticed(seq)) }

    /// The delta line for a stored event: encoded once, by hand (about 0.4 µs), and the same bytes go to every
    /// subscriber.
    static func deltaLine(_ event: StoredEvent) -> ByteBuffer { ByteBuffer(bytes: deltaBytes(event)) }

    /// The bytes of `deltaLine`.
    static func deltaBytes(_ event: StoredEvent) -> [UInt8] {
        LineWriter.deltaLine(
            board: event.board, seq: event.seq, at: event.at, actor: event.actor,
            clientID: event.clientID.map { ClientID($0) }, mut: event.mut, op: event.op, activity: event.activity)
    }

    /// A summary for the `boards` reply, or nil when `user` is not a member.
    func summary(for user: UserID) -> ServerMessage.BoardSummary? {
        settleIfPublished()
        guard let member = committed.members[user] else { return nil }
        return ServerMessage.BoardSummary(board: id, name: committed.name, role: member.role, seq: committed.seq)
    }

    /// Whether `user` is a member of the durable board (non-members see `not_found`, exactly as for a missing
    /// board). Access is never granted on a change that is not stored yet.
    func isMember(_ user: UserID) -> Bool {
        settleIfPublished()
        return !isClosed && committed.members[user] != nil
    }
}
