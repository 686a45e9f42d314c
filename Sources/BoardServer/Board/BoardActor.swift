import BoardCore
import BoardStore
import BoardWire
import Logging
import NIOCore

/// Owns one board: drives its ``BoardMachine`` and keeps its subscribers and presence (STYLE.md 4).
///
/// The machine decides; the actor carries out what it asks for: it sends answers to sessions, hands batches to the
/// store's one writer (which publishes each the moment it is durable, through `publication`, and then tells `run()`),
/// reads the store for ops and catch-ups, and runs timers on the injected clock. Subscriptions, presence and the
/// caches of encoded snapshots are the actor's own.
actor BoardActor {
    let id: BoardID
    let epoch: String
    let store: any BoardStore
    let configuration: ServerConfiguration
    let clock: any ServerClock
    let logger: Logger
    /// A read of the store retried every 500 ms while the database is away: logged when it starts failing, about
    /// once a minute, and when it works again.
    private let readLog = RetryLog(
        "cannot read the changes of other nodes; trying again", recovered: "the changes of other nodes are read again")

    /// Sequencing, exactly-once, rate limits, catch-up and the recent log.
    var machine: BoardMachine
    /// The ``LiveSettings`` generation the machine's rate was taken from (0: the configuration's).
    var liveGeneration: UInt64 = 0
    /// When the batch in the writer was handed over (for the commit latency metric).
    var commitStarted: (number: UInt64, at: ContinuousClock.Instant)?
    var subscribers: [SessionID: SessionRef] = [:]
    /// The subscribers grouped by event loop, shared with the store's writer, which publishes durable batches.
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
    /// Callers of `drained()` waiting for every pending change to be durable and answered.
    var drainWaiters: [CheckedContinuation<Void, Never>] = []
    /// The stored changes the log holds but has not read yet (`loadRetained`).
    var unloaded: ClosedRange<UInt64>?
    /// The read of `unloaded` under way.
    var loadingRetained: Task<Void, Never>?
    /// The board hash of `committed` at a seq, for `subscribed` (computed at most once per seq).
    var hashCache: (seq: UInt64, hash: String)?
    /// The JSON of `committed` at a seq, for `snapshot` lines (encoded at most once per seq).
    var snapshotCache: (seq: UInt64, state: [UInt8])?
    /// Presence lines (joins, changes, leaves) waiting for the next presence flush, each with the session it is
    /// about (which does not get it).
    var presenceQueue: [(line: ByteBuffer, about: SessionID?)] = []
    /// Whether a presence flush is scheduled.
    var presenceFlushScheduled = false

    /// The store writer's answers, timers and `stop()`, in the order they were given; `run()` handles them.
    let outcomes: AsyncStream<Outcome>.Continuation
    private let outcomeStream: AsyncStream<Outcome>

    /// What `run()` is told.
    enum Outcome: Sendable {
        /// The store writer finished batch `batch`.
        case written(Result<Void, StoreError>, batch: UInt64)
        /// The shared store announced that the board's head is at this seq (nil: check, announcements were lost).
        case noticed(UInt64?)
        /// Time to read the store again for a commit whose outcome is unknown.
        case resolve
        /// `stop()`; `final` when the server is shutting down.
        case stop(final: Bool)
    }

    /// The board as of the last durable change.
    var committed: Board { machine.committed }
    /// Recent committed deltas.
    var log: DeltaLog { machine.log }
    /// Whether the board is archived (no longer served here).
    var isClosed: Bool { machine.isClosed }

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
        self.machine = BoardMachine(
            id: id, board: board, limits: configuration.limits, snapshotInterval: configuration.snapshotInterval)
        self.store = store
        self.configuration = configuration
        self.clock = clock
        var logger = logger
        logger[metadataKey: "board"] = "\(id)"
        self.logger = logger
        self.publication = BoardPublication(board: id)
        (outcomeStream, outcomes) = AsyncStream.makeStream(of: Outcome.self, bufferingPolicy: .unbounded)
    }

    /// A loaded board's log starts empty: its last `history_max` stored changes (up to `seq`) are read from the
    /// store the first time a resume or a fetch needs them (`loadRetained`), so start-up reads no history at all
    /// (so start time does not grow with the log).
    private func startLog(at seq: UInt64, sinceSnapshot: UInt64) {
        let capacity = UInt64(configuration.limits.historyMax)
        unloaded = seq == 0 ? nil : (seq >= capacity ? seq - capacity + 1 : 1)...seq
        machine.sinceSnapshot = sinceSnapshot
    }

    /// Reads the stored changes the log has not loaded yet into it (once; concurrent callers wait for the same
    /// read). On a store error the log stays as it is: a resume from before it gets a snapshot.
    func loadRetained() async {
        guard let range = unloaded else { return }
        if let loading = loadingRetained { return await loading.value }
        let loading = Task {
            let limit = Int(range.upperBound - range.lowerBound + 1)
            let events = (try? await store.events(id, from: range.lowerBound, to: range.upperBound, limit: limit)) ?? []
            machine.log.prepend(events.map {
                DeltaLog.Entry(seq: $0.seq, line: BoardMachine.deltaLine($0), activity: $0.activity, inverse: $0.inverse)
            })
            unloaded = nil
            loadingRetained = nil
        }
        loadingRetained = loading
        await loading.value
    }

    /// Hands the machine each answer of the store's writer, each announced head and each timer until `stop()`;
    /// then until what is left is durable and answered, and returns.
    func run() async {
        for await outcome in outcomeStream {
            switch outcome {
            case .written(let result, let batch): await perform(machine.written(result, batch: batch))
            case .noticed(let seq): await perform(machine.noticed(head: seq))
            case .resolve: await perform(machine.resolve())
            case .stop(let final): await perform(machine.stop(final: final))
            }
            if machine.isFinished { break }
        }
        resumeDrainWaiters()
        await snapshotAtStop()
    }

    /// Carries out the machine's actions in order; a read of other nodes' changes is awaited here and its result
    /// handed back, so the actions it leads to follow.
    func perform(_ actions: [BoardMachine.Action]) async {
        var next = actions
        while !next.isEmpty {
            var readFrom: UInt64?
            for action in next {
                if case .readChanges(let from) = action {
                    readFrom = from
                } else {
                    carryOut(action)
                }
            }
            next = []
            if let from = readFrom {
                let read = await readChanges(from: from)
                if case .success = read { readLog.worked(logger) }
                next = machine.caughtUp(read)
            }
        }
        resumeDrainWaiters()
    }

    /// Carries out actions that need no await (answers, commits, fan-out).
    func perform(now actions: [BoardMachine.Action]) {
        for action in actions {
            if case .readChanges = action {
                assertionFailure("a read of the store from a synchronous path")
                continue
            }
            carryOut(action)
        }
        resumeDrainWaiters()
    }

    private func carryOut(_ action: BoardMachine.Action) {
        switch action {
        case .send(let line, let session, let rejected):
            if let rejected { configuration.metrics.rejected(rejected) }
            publication.answer(line, to: session)
        case .countRejected(let code):
            configuration.metrics.rejected(code)
        case .commit(let commit):
            commitStarted = (commit.number, ContinuousClock.now)
            let (outcomes, publication, number, batch) = (self.outcomes, self.publication, commit.number, commit.publication)
            store.submit(encoded: commit.changes, snapshots: commit.snapshot.map { [$0] } ?? []) { result in
                if case .success = result { publication.publish(batch) }
                outcomes.yield(.written(result, batch: number))
            }
        case .deliver(let batch):
            publication.deliver(batch)
        case .fanOut(let lines, let removing):
            publication.fanOut(lines, removing: removing)
        case .committed(let batch, let count, let seq, let left):
            if let batch {
                publication.settled(batch)
                if let started = commitStarted, started.number == batch {
                    configuration.metrics.committed(count, in: ContinuousClock.now - started.at)
                    commitStarted = nil
                }
            }
            configuration.hookSignals.committed(id)
            configuration.inboxSignals.committed(id)
            logger.debug("committed", metadata: ["seq": "\(seq)", "changes": "\(count)"])
            if !left.isEmpty { endSubscriptionsOfNonMembers() }
        case .commitFailed(let error, let rejected):
            configuration.metrics.commitFailed()
            logger.error("commit failed; \(rejected) op(s) rejected", metadata: ["error": "\(error)"])
        case .readChanges:
            break
        case .retryResolve(let ms):
            let (outcomes, clock) = (self.outcomes, self.clock)
            Task {
                await clock.sleep(milliseconds: ms)
                outcomes.yield(.resolve)
            }
        case .rejectReused(let session, let mut):
            Task { await self.rejectReused(session, mut: mut) }
        case .log(let notice):
            log(notice)
        }
    }

    /// Reads every change after `from - 1` (in pages), for a catch-up.
    private func readChanges(from start: UInt64) async -> Result<[StoredEvent], StoreError> {
        var events: [StoredEvent] = []
        do throws(StoreError) {
            while true {
                let from = start + UInt64(events.count)
                let page = try await store.events(id, from: from, to: UInt64(Int64.max), limit: Self.catchUpPage)
                events += page
                if page.count < Self.catchUpPage { break }
            }
        } catch {
            configuration.metrics.readFailed(error)
            return .failure(error)
        }
        return .success(events)
    }

    /// How many events a catch-up reads per query.
    static let catchUpPage = 1_000

    private func log(_ notice: BoardMachine.Notice) {
        switch notice {
        case .headMoved(let retry): logger.debug("head moved; catching up", metadata: ["retry": "\(retry)"])
        case .headMovedTooOften(let times):
            logger.error("the head moved \(times) times in a row; rejecting the batch with storage_busy")
        case .outcomeUnknown:
            logger.warning(
                "the database connection was lost during a commit; reading the store until it answers whether the commit landed")
        case .landed: logger.info("the commit whose answer was lost is stored; acknowledging it")
        case .notLanded: logger.info("the commit whose answer was lost is not stored; writing its changes again")
        case .readFailed(let error):
            readLog.failed(error, logger)
        case .abandoned(let ops):
            logger.warning("stopping with the outcome of a commit unknown; its clients resend its ops", metadata: ["ops": "\(ops)"])
        case .eventsOutOfOrder(let after, let got):
            logger.error("the events read do not follow seq \(after) (got \(got)); stopping there")
        case .doesNotReplay(let seq, let rejection):
            logger.error("another node's change at seq \(seq) does not replay: \(rejection)")
        }
    }

    /// A clean stop stores a snapshot of the durable board when changes were committed since the last one, so the
    /// next start replays no tail. After a crash the tail is at most `snapshotInterval` long.
    private func snapshotAtStop() async {
        guard machine.sinceSnapshot > 0, !isClosed else { return }
        do {
            try await store.append([], snapshots: [committed])
            machine.sinceSnapshot = 0
        } catch {
            logger.warning("no snapshot at stop; the next start replays the tail", metadata: ["error": "\(error)"])
        }
    }

    /// Returns once every change applied so far is durable and its ack and delta are written to the outboxes.
    func drained() async {
        if machine.isDrained { return }
        await withCheckedContinuation { drainWaiters.append($0) }
    }

    func resumeDrainWaiters() {
        guard machine.isDrained, !drainWaiters.isEmpty else { return }
        let waiters = drainWaiters
        drainWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    /// Ends `run()` once everything pending is durable.
    ///
    /// `final`: the server is shutting down, and once `run()` has returned the board refuses new ops
    /// (`storage_busy`) instead of applying what nobody would acknowledge.
    nonisolated func stop(final: Bool = false) { outcomes.yield(.stop(final: final)) }

    /// The shared store announced the board's head at `seq` (nil: announcements may have been lost, check).
    nonisolated func noticed(head seq: UInt64?) { outcomes.yield(.noticed(seq)) }

    /// Settles the batch in the writer now if the writer has published it (it is durable and its subscribers have
    /// it), without waiting for the writer's answer to reach `run()`: whoever heard of the batch from the writer
    /// (an `ack`, a `delta`) and asks the board next (to undo it, fetch it, resume after it, subscribe as the member
    /// it added) finds it in `committed`. The answer, when it comes, is for a settled batch and ignored.
    func settleIfPublished() {
        guard let number = machine.writingBatch, publication.isPublished(number) else { return }
        perform(now: machine.published(number))
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
