import BoardCore
import BoardStore
import BoardWire
import NIOCore

/// One board's sequencing as a value: the server-side twin of the client's `ClientSession`.
///
/// It owns the board as applied (`head`) and as durable (`committed`), the changes waiting for the store, the batch
/// in the store's writer (one owner: nobody else keeps it), the exactly-once marks, the rate buckets, the catch-up
/// with other nodes' commits and the recent log. It never awaits and touches no socket, store or clock: each event
/// (an op arrived, the writer answered, a read of the store came back, a timer fired) is a `mutating` call that
/// returns the ``Action``s to carry out. ``BoardActor`` is the thin driver that does so; the tests drive the machine
/// alone, with times passed in.
///
/// The op path: an op is applied to `head` at once by the pure reducer and appended to `pending`; when no batch of
/// this board is in the writer, everything pending becomes the batch (``Action/commit(_:)``). The writer publishes
/// that batch itself the moment it is durable (each origin's `ack` just before its `delta`, the same delta bytes to
/// every subscriber: ``BoardPublication``), and its answer reaches the machine afterwards (`written`), which takes the
/// batch into `committed`, the log and the marks, and hands over what was applied meanwhile. A failed batch, and
/// everything applied on top of it, is rejected: `head` returns to `committed`.
struct BoardMachine {
    let id: BoardID
    private(set) var limits: WireLimits
    /// A snapshot is stored with the batch once this many changes were committed since the last one.
    let snapshotInterval: UInt64

    /// Every op applied, durable or not.
    var head: Board
    /// The board as of the last durable change: what snapshots, `subscribed` and access checks use.
    var committed: Board
    /// Recent committed deltas, encoded.
    var log: DeltaLog
    /// Applied, not yet handed to the store.
    var pending: [Pending] = []
    var state: State = .serving(.idle)
    /// Changes committed since the last stored snapshot.
    var sinceSnapshot: UInt64
    /// The number of the last batch handed to the writer (its answer carries it).
    var batchNumber: UInt64 = 0
    /// How many times in a row the batch in flight found the head moved and was caught up and written again.
    var headMovedRetries = 0
    /// The highest head announced for this board that `committed` has not reached yet, or `.max` when the board
    /// must check (the LISTEN connection was re-established): caught up once no batch is in the writer.
    var noticedHead: UInt64?
    /// The highest committed mutation per client.
    var lastMut: [ClientKey: UInt64] = [:]
    /// The highest mutation per client in `pending` or in the batch in flight (a resend is found without a scan).
    var pendingMut: [ClientKey: UInt64] = [:]
    /// Mutations whose ops are waiting for a read of the store (see ``Submission``): a commit of the same mutation
    /// meanwhile is noted, so the op is answered with that ack instead of being applied again.
    var reads: [Mutation: StoreRead] = [:]
    /// Each user's op token bucket on this board (`rate_ops_per_s`, `rate_burst`).
    var rateBuckets: [UserID: TokenBucket] = [:]

    /// A new op rate: every user starts again with a full bucket at it.
    mutating func setRate(opsPerS: Int, burst: Int) {
        guard opsPerS != limits.rateOpsPerS || burst != limits.rateBurst else { return }
        limits.rateOpsPerS = opsPerS
        limits.rateBurst = burst
        rateBuckets = [:]
    }
    /// Each session's current run of rate limiting on this board (`rate_close_ms`).
    var rateRuns: [SessionID: RateLimitRun] = [:]
    /// Server changes (admin ops) that a catch-up moved, made a no-op or refused, by the seq they were first given.
    var serverChanges: [UInt64: ServerChangeFate] = [:]
    /// Answers given without a commit (a refusal on the board's rules, a no-op's `ack`) held until the ops the same
    /// client sent before them are answered, so that a client reads the answers to its ops on a board in the order
    /// it sent them (Protocol.md, "op"). A batch handed to the writer takes those its changes answer first
    /// (``Batch/answers``): the writer publishes each right after that change.
    var held: [HeldAnswer] = []
    /// What the calls since the last `take()` asked for.
    var actions: [Action] = []

    /// How many times in a row a batch may find the head moved, catch up and be written again before its ops are
    /// rejected with `storage_busy` (retryable). Each retry follows another node's commit to this board, so the board
    /// always progresses; the bound keeps one node from waiting for ever when others win every race (two nodes
    /// writing one board flat out on a loaded 2-core machine can lose a few dozen in a row).
    static let headMovedRetriesMax = 256
    /// How long a board waits between reads of the store while the outcome of a commit is unknown.
    static let resolveRetryMs: Int64 = 500

    /// Where the board stands.
    enum State {
        /// Serving ops; the writer's side is as given.
        case serving(Writer)
        /// `stop` arrived: what is pending is written and answered, then the machine ends. `final`: the server is
        /// shutting down, so once ended new ops are refused (nobody would write them).
        case stopping(Writer, final: Bool)
        /// Stopped. `final`: ops are refused with `storage_busy`; otherwise the next op serves again (a board
        /// stopped to be handed on, or a test's pause of the driver's loop).
        case ended(final: Bool)
        /// Archived: every request is answered as for a missing board.
        case closed
    }

    /// What the store's writer is doing for this board.
    enum Writer {
        case idle
        /// A batch is being committed.
        case writing(Batch)
        /// Reading what other nodes committed; then `redo` (a batch whose commit found the head moved) and everything
        /// pending are applied again on top and handed over.
        case catchingUp(redo: Batch?)
        /// The database connection was lost while the batch was committed: it may be stored or not. New ops are
        /// refused until a read of the store (`reading`) or the next one, after ``resolveRetryMs``, says which.
        case unresolved(Batch, reading: Bool)

        /// The batch the writer holds, whatever it is doing with it; set only where there is one.
        var batch: Batch? {
            get {
                switch self {
                case .writing(let batch), .unresolved(let batch, _), .catchingUp(redo: let batch?): batch
                case .idle, .catchingUp(redo: nil): nil
                }
            }
            set {
                guard let newValue else { return }
                switch self {
                case .writing: self = .writing(newValue)
                case .unresolved(_, let reading): self = .unresolved(newValue, reading: reading)
                case .catchingUp(redo: .some): self = .catchingUp(redo: newValue)
                case .idle, .catchingUp(redo: nil): break
                }
            }
        }
    }

    /// The changes handed to the writer together.
    struct Batch {
        var number: UInt64
        var changes: [Pending]
        /// The board as of the batch's last change.
        var end: Board
        /// Whether the board's snapshot is written with it.
        var snapshot: Bool
        /// Users the batch takes off the board (their subscriptions end before any of its deltas reach them).
        var removing: Set<UserID>
        /// Held answers sent right after a change of the batch (by index): the last change their client sent
        /// before them.
        var answers: [(after: Int, answer: HeldAnswer)] = []

        /// What the writer publishes once it is durable.
        var publication: BoardPublication.Batch {
            var entries = changes.map(\.entry)
            for (index, answer) in answers { entries[index].then.append((answer.session, answer.line)) }
            return BoardPublication.Batch(number: number, entries: entries, removing: removing)
        }
    }

    /// What the driver carries out, in order.
    enum Action {
        /// Write a line to one session: an `ack`, or a `reject` (with its code, for the metrics).
        case send(ByteBuffer, to: SessionRef, rejected: RejectCode?)
        /// Count a refusal whose line is held to be sent after its client's earlier answers (the metrics).
        case countRejected(RejectCode)
        /// Hand a batch to the store's writer: `changes` committed in one transaction with `snapshot`, then
        /// `publication` published from the writer's thread, then the answer passed to ``written(_:batch:)``.
        case commit(Commit)
        /// Send a durable batch that the writer did not publish (its outcome was learned from a read).
        case deliver(BoardPublication.Batch)
        /// Send changes other nodes committed to every subscriber, after ending the subscriptions of `removing`.
        case fanOut(ByteBuffer, removing: Set<UserID>)
        /// `count` changes up to `seq` are durable (metrics, webhooks, the log); the local subscriptions and
        /// presence of `left` (no longer members) end.
        case committed(batch: UInt64?, count: Int, seq: UInt64, left: Set<UserID>)
        /// A batch failed (or its outcome is unknown): count it and log why.
        case commitFailed(StoreError, rejected: Int)
        /// Read what other nodes committed after `committed.seq`, then call ``caughtUp(_:)``.
        case readChanges(from: UInt64)
        /// Call ``resolve()`` after this many milliseconds.
        case retryResolve(afterMs: Int64)
        /// Reject a mutation the client had used on another board, naming that board (a read of the store).
        case rejectReused(SessionRef, mut: UInt64)
        /// Something for the operator's log.
        case log(Notice)
    }

    /// An answer (a refusal, a no-op's `ack`) waiting for the answers to its client's earlier ops.
    struct HeldAnswer {
        var key: ClientKey
        var mut: UInt64
        var line: ByteBuffer
        var session: SessionRef
    }

    /// A commit to start.
    struct Commit {
        var number: UInt64
        var changes: [EncodedChange]
        var snapshot: Board?
        var publication: BoardPublication.Batch
    }

    /// What the machine tells the operator.
    enum Notice: Equatable {
        case headMoved(retry: Int)
        case headMovedTooOften(Int)
        case outcomeUnknown
        case landed
        case notLanded
        case readFailed(String)
        case abandoned(ops: Int)
        case eventsOutOfOrder(after: UInt64, got: UInt64)
        case doesNotReplay(seq: UInt64, Rejection)
    }

    /// Exactly-once delivery is keyed by user and client id.
    struct ClientKey: Hashable {
        var user: UserID
        var client: ClientID
    }

    /// A client's mutation.
    struct Mutation: Hashable {
        var client: ClientKey
        var mut: UInt64
    }

    /// Ops waiting for a read of the store about one mutation, and the seq it was committed at meanwhile.
    struct StoreRead {
        var readers = 0
        var committedAt: UInt64?
    }

    /// A change applied to `head` and waiting for the store: the event, its `delta` line and the texts the store
    /// keeps, all from one encoding (`LineWriter.storedDelta`).
    struct Pending {
        var change: EncodedChange
        /// The `delta` line, encoded once: every subscriber gets these bytes once the change is durable, and the log
        /// keeps them (its own allocation, never a slice of a larger buffer that it would keep alive).
        var line: ByteBuffer
        var origin: SessionRef?
        /// Sessions that sent the same mutation again while it waited: each gets the `ack` when it is settled.
        var resentBy: [SessionRef] = []
        /// For an undo: the change it undoes (its activity and inverse), so a catch-up can apply it again.
        var undoTarget: (activity: Activity, inverse: Op?)?

        init(_ event: StoredEvent, origin: SessionRef?, undoTarget: (activity: Activity, inverse: Op?)? = nil) {
            let delta = LineWriter.storedDelta(
                board: event.board, seq: event.seq, at: event.at, actor: event.actor,
                clientID: event.clientID.map { ClientID($0) }, mut: event.mut, op: event.op, activity: event.activity)
            change = EncodedChange(
                event: event, op: delta.op, activity: delta.activity, inverse: event.inverse.map(LineWriter.opJSON))
            line = ByteBuffer(bytes: delta.line)
            self.origin = origin
            self.undoTarget = undoTarget
        }

        var event: StoredEvent { change.event }

        /// Every session owed an answer for it: the origin, then each resend.
        var answerees: [SessionRef] { (origin.map { [$0] } ?? []) + resentBy }

        var entry: BoardPublication.Entry {
            BoardPublication.Entry(seq: event.seq, mut: event.mut, line: line, origin: origin, then: [])
        }

        var removesMember: Bool {
            if case .removeMember = event.op { return true }
            return false
        }
    }

    init(id: BoardID, board: Board, limits: WireLimits, snapshotInterval: UInt64, sinceSnapshot: UInt64 = 0) {
        self.id = id
        self.limits = limits
        self.snapshotInterval = snapshotInterval
        self.head = board
        self.committed = board
        self.sinceSnapshot = sinceSnapshot
        self.log = DeltaLog(capacity: limits.historyMax, byteCapacity: limits.historyBytes)
    }

    /// The actions asked for since the last call, in order.
    mutating func take() -> [Action] {
        defer { actions = [] }
        return actions
    }

    // MARK: - State

    /// What the writer is doing (idle once the machine has ended or closed).
    var writer: Writer {
        get {
            switch state {
            case .serving(let writer), .stopping(let writer, _): writer
            case .ended, .closed: .idle
            }
        }
        set {
            switch state {
            case .serving: state = .serving(newValue)
            case .stopping(_, let final): state = .stopping(newValue, final: final)
            case .ended, .closed: break
            }
        }
    }

    var isClosed: Bool {
        if case .closed = state { return true }
        return false
    }

    /// Whether the machine has ended (or closed): the driver's loop returns.
    var isFinished: Bool {
        switch state {
        case .ended, .closed: true
        case .serving, .stopping: false
        }
    }

    /// Whether everything applied so far is durable and answered (or never will be: the machine has ended).
    var isDrained: Bool {
        if isFinished { return true }
        if case .idle = writer { return pending.isEmpty }
        return false
    }

    /// The number of the batch being committed, if one is.
    var writingBatch: UInt64? {
        if case .writing(let batch) = writer { return batch.number }
        return nil
    }

    var isUnresolved: Bool {
        if case .unresolved = writer { return true }
        return false
    }

    mutating func emit(_ action: Action) { actions.append(action) }

    // MARK: - Stopping

    /// Ends once everything pending is durable and answered. `final`: the server is shutting down.
    mutating func stop(final: Bool) -> [Action] {
        switch state {
        case .serving(let writer): state = .stopping(writer, final: final)
        case .stopping(let writer, let wasFinal): state = .stopping(writer, final: final || wasFinal)
        case .ended, .closed: break
        }
        endIfStopped()
        return take()
    }

    mutating func endIfStopped() {
        guard case .stopping(.idle, let final) = state, pending.isEmpty else { return }
        state = .ended(final: final)
    }

    /// The board is archived: from now on it answers every request as for a missing board. The caller drained it.
    mutating func close() {
        state = .closed
    }

    // MARK: - Marks

    /// A committed client mutation: the client's highest mark, and the answer of any op reading the store about it.
    mutating func noteCommitted(_ key: ClientKey, mut: UInt64, seq: UInt64) {
        lastMut[key] = max(lastMut[key] ?? 0, mut)
        if !reads.isEmpty { reads[Mutation(client: key, mut: mut)]?.committedAt = seq }
    }

    /// A session ended: forget its run of rate limiting.
    mutating func sessionEnded(_ session: SessionID) {
        rateRuns[session] = nil
    }

    mutating func reject(
        _ session: SessionRef, _ mut: UInt64, _ code: RejectCode, _ message: String, retryAfterMs: UInt64? = nil
    ) {
        let line = LineWriter.rejectLine(board: id, mut: mut, code: code, message: message, retryAfterMs: retryAfterMs)
        emit(.send(ByteBuffer(bytes: line), to: session, rejected: code))
    }

    mutating func ack(_ session: SessionRef, mut: UInt64, seq: UInt64, noop: Bool = false) {
        emit(.send(ByteBuffer(bytes: LineWriter.ackLine(board: id, mut: mut, seq: seq, noop: noop)), to: session, rejected: nil))
    }
}
