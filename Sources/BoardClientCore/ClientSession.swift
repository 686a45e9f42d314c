import BoardCore
import BoardWire

/// The whole client as one state machine that returns actions (STYLE.md 3): the connection's lifecycle (dial,
/// `hello`, subscribe, live, backoff), the replica, pending ops and their exactly-once resends, the journal's
/// generations, heartbeats and pacing. It owns no socket, no clock, no file and no continuation: the driver
/// (`BoardClient`) feeds it inputs with the time (a `Duration` since the driver started) and carries out the
/// ``Action``s it returns, so tests walk every transition with a manual clock.
///
/// The states carry their data: a connection's ``Link`` (endpoint, liveness clock, why it is ending) from
/// `handshaking` to `closing`, the `welcome` from `connected` on, and a ``Subscription`` (presence, the gap being
/// fetched, whether a snapshot came) in `subscribing` and `live` only, so it ends with the subscription whatever
/// ends it (a drop, a failed or lost subscribe, a resync, another board).
///
/// The replica and the pending-op tables are fields of the session, not a payload of the states, on purpose. They
/// must outlive every state but `stopped` (a reconnect resumes from the replica's seq and resends the ops with their
/// mutation ids, the journal writes them, ``status(of:)`` reads them offline), so they would ride in all nine states
/// and no state would ever drop them: moving them removes no reset by hand. And each of some forty mutations would
/// have to take the payload out of the enum and put it back; taken out while the enum still holds it, the replica's
/// board is shared, so the in-place apply of a delta copies the whole card table (milliseconds on 10,000 cards
/// instead of about 15 µs) unless every site first parks the state in a placeholder.
public struct ClientSession: Sendable {
    /// What the session is configured with; the driver fills it from its configuration.
    public struct Settings: Sendable {
        /// The endpoints' names, in the order they are tried (for connection-state events).
        public var endpoints: [String]
        /// Backoff between rounds of dials.
        public var policy: ReconnectPolicy
        /// The board to subscribe to first.
        public var board: BoardID?
        /// The `client` string of `hello`.
        public var clientName: String
        /// The `hello` token.
        public var token: String
        /// Whether this client shows in the board's presence.
        public var announcesPresence: Bool
        /// Whether ops are paced to the server's advertised rate.
        public var paceOps: Bool
        /// How often an op rejected with a retryable code is sent again.
        public var retryRejected: Int
        /// Whether there is a journal: ops are then sent only once on disk.
        public var hasJournal: Bool
        /// Confirmed boards shared with the process's other clients (``SharedBoards``); nil: this client's own.
        public var sharedBoards: SharedBoards?
        /// Whether the session keeps everyone's presence (``presence``). When false, presence events still come,
        /// the `.state` one with everyone, the others with an empty ``PresenceEvent/sessions``.
        public var keepsPresence = true

        /// Settings with the client's defaults.
        public init(
            endpoints: [String], token: String, board: BoardID?, policy: ReconnectPolicy = ReconnectPolicy(),
            clientName: String = "cork/0.1.0", announcesPresence: Bool = true, paceOps: Bool = true,
            retryRejected: Int = 5, hasJournal: Bool = false, sharedBoards: SharedBoards? = nil
        ) {
            self.sharedBoards = sharedBoards
            self.endpoints = endpoints
            self.token = token
            self.board = board
            self.policy = policy
            self.clientName = clientName
            self.announcesPresence = announcesPresence
            self.paceOps = paceOps
            self.retryRejected = retryRejected
            self.hasJournal = hasJournal
        }
    }

    /// Where the connection is.
    public enum State: Sendable {
        /// Not started.
        case idle
        /// Dialling endpoint number `endpoint`.
        case dialing(endpoint: Int)
        /// Waiting out a backoff before dialling `endpoint`.
        case backoff(until: Duration, endpoint: Int)
        /// Connected; `hello` sent, `welcome` not yet here.
        case handshaking(Link)
        /// Authenticated, with no subscription live or on its way (no board, or its subscribe failed).
        case connected(Link, ServerMessage.Welcome)
        /// Authenticated; a `subscribe` is on its way (presence may already arrive).
        case subscribing(Link, ServerMessage.Welcome, Subscription)
        /// Subscribed: deltas flow.
        case live(Link, ServerMessage.Welcome, Subscription)
        /// The session decided to end the connection (a silent server); waiting for the socket to close.
        case closing(Link)
        /// Stopped for good: by the owner (nil) or by a fatal failure.
        case stopped(ClientError?)
    }

    /// One open connection's bookkeeping.
    public struct Link: Sendable {
        /// The endpoint it is on.
        public var endpoint: Int
        /// When the last line arrived.
        public var lastReceived: Duration
        /// When liveness is checked next.
        public var checkAt: Duration
        /// Why it is ending, once known (a `bye`, a closing `error`, silence).
        public var failure: Failure?
    }

    /// What belongs to one subscription and ends with it (carried by `subscribing` and `live`).
    public struct Subscription: Sendable {
        /// Everyone on the board, by session (`presence_state`, then `presence` and `presence_left` lines).
        public var presence: [SessionID: PresenceEntry] = [:]
        /// The gap asked for again with a `fetch`, if any (only while live).
        public var fetching: ClosedRange<UInt64>?
        /// Whether a snapshot was loaded since the `subscribe` (its `subscribed.hash` then needs no check).
        public var loadedSnapshot = false

        /// A subscription just asked for.
        public init() {}
    }

    /// How a dial or a session ended.
    public struct Failure: Hashable, Sendable {
        /// The error, for the connection-state event.
        public var error: ClientError
        /// Whether retrying can help.
        public var isFatal: Bool
        /// The server's hint (`retry_after_ms` of an error or `bye`).
        public var retryAfter: Duration?

        /// A failure.
        public init(_ error: ClientError, isFatal: Bool = false, retryAfter: Duration? = nil) {
            self.error = error
            self.isFatal = isFatal
            self.retryAfter = retryAfter
        }
    }

    /// What the driver must do, in order.
    public enum Action: Sendable {
        /// Dial endpoint number `endpoint`; report ``dialed(now:)`` or ``dialFailed(_:now:)``.
        case connect(endpoint: Int)
        /// Write one line on the open connection.
        case send(ClientMessage)
        /// Close the open connection; then report ``closed(_:now:)``.
        case close
        /// Hand an event to the owner.
        case emit(ClientEvent)
        /// Resume whoever waits for this.
        case resolve(Resolution)
        /// The journal changed: write ``journalToWrite()`` (and report ``journalWritten(_:error:)``).
        case persist
        /// Call ``timerFired(now:)`` at this time (nil: nothing to time). Replaces any earlier deadline.
        case schedule(Duration?)
        /// Stop: fail every waiter, end the events.
        case stop(ClientError?)
    }

    /// Who a ``Action/resolve(_:)`` resumes.
    public enum Resolution: Sendable {
        /// The op's outcome is known.
        case op(mut: UInt64, OpOutcome)
        /// The op can never complete (its line did not decode on the server).
        case opFailed(mut: UInt64, ClientError)
        /// The op was sent again under a new mutation id: its waiters follow it.
        case opMoved(from: UInt64, to: UInt64)
        /// The answer to a request.
        case answer(RequestID, ServerMessage)
        /// The board is loaded and the subscription live.
        case board(Board)
        /// The subscription failed.
        case boardFailed(ClientError)
        /// The op is on disk (``submit(_:wallClock:now:)`` may return).
        case durable(mut: UInt64)
        /// The journal write holding the op failed: the op was taken back.
        case notDurable(mut: UInt64, ClientError)
    }

    // MARK: - State

    /// The settings.
    public let settings: Settings
    /// Where the connection is.
    public internal(set) var state: State = .idle
    /// The connection's state as events report it.
    public internal(set) var connectionState: ConnectionState
    var rotation: EndpointRotation
    /// The random number in 0 … 1 used for the next jitter (the driver sets it; tests fix it).
    public var nextRandom: Double = 0.5

    /// The client id the server assigned.
    public internal(set) var clientID: ClientID?
    /// The next mutation id.
    public internal(set) var nextMut: UInt64 = 1
    /// The board followed.
    public internal(set) var boardID: BoardID?
    /// The replica of ``boardID``, once a snapshot arrived.
    public internal(set) var replica: Replica?
    /// Ops not on any replica (sent while no board is subscribed, or set aside for a fresh snapshot), by mut.
    var detached: [UInt64: PendingOp] = [:]
    /// Ops read from the journal, placed once the user is known.
    var restored: [PendingOp] = []
    /// Ops not yet handed to the current connection, in mutation order.
    var unsent: [UInt64] = []
    /// Retries left per mutation id, for retryable rejects.
    var retries: [UInt64: Int] = [:]
    /// Ops sent again under a new mutation id: old → new.
    var resent: [UInt64: UInt64] = [:]
    /// Outcomes of recent ops (the last ``finishedKept``), so a late caller still learns them.
    var finished: [UInt64: OpOutcome] = [:]
    var finishedOrder: [UInt64] = []
    let finishedKept = 10_000
    var bucket = TokenBucket(rate: 20, burst: 40)
    /// No op is sent before this time (a `rate_limited` reject).
    var holdUntil: Duration?
    var publisher = BoardPublisher()
    /// Why the last subscribe failed, when nobody was waiting to hear it.
    var subscriptionError: ClientError?
    /// Callers waiting for the board.
    var boardWaiters = 0
    /// Requests sent (or to send once connected) and unanswered; resent after a reconnect.
    var requests: [RequestID: ClientMessage] = [:]
    var nextRequest: UInt64 = 1
    /// The journal generation last asked for, handed to the writer, and known to be on disk.
    var journalRequested = 0
    var journalTaken = 0
    var journalWritten = 0
    /// Ops not sent until the journal generation that holds them is on disk: mut → generation.
    var heldForJournal: [UInt64: Int] = [:]
    /// Ops whose submitter waits for them to be on disk: mut → generation.
    var awaitingDurable: [UInt64: Int] = [:]
    /// The deadline last handed to the driver.
    var scheduled: Duration?
    /// Unread entries in the user's inbox as the server last said (an `inbox` page, `inbox.entry` or `inbox.read`);
    /// nil until it said. Kept across reconnects: the last known count, until the server says again.
    public internal(set) var inboxUnread: Int?

    /// A session that has not started, with what a journal kept (or an empty one).
    public init(settings: Settings, journal: ClientJournal = ClientJournal()) {
        self.settings = settings
        rotation = EndpointRotation(count: settings.endpoints.count, policy: settings.policy)
        boardID = settings.board
        clientID = journal.clientID
        nextMut = journal.nextMut
        restored = journal.pending
        connectionState = .connecting(endpoint: "")
    }

    // MARK: - Queries

    /// The `welcome` of the current connection.
    public var welcome: ServerMessage.Welcome? {
        switch state {
        case .connected(_, let welcome), .subscribing(_, let welcome, _), .live(_, let welcome, _): welcome
        default: nil
        }
    }

    /// Whether the subscription is live.
    public var isSubscribed: Bool {
        if case .live = state { return true }
        return false
    }

    /// Whether a `subscribe` is on its way.
    public var isSubscribing: Bool {
        if case .subscribing = state { return true }
        return false
    }

    /// Whether the session has stopped.
    public var isStopped: Bool {
        if case .stopped = state { return true }
        return false
    }

    /// The current subscription (subscribing or live).
    public var subscription: Subscription? {
        switch state {
        case .subscribing(_, _, let subscription), .live(_, _, let subscription): subscription
        default: nil
        }
    }

    /// Everyone on the board, by session (empty unless subscribing or live).
    public var presence: [SessionID: PresenceEntry] { subscription?.presence ?? [:] }

    /// The gap being fetched, if any.
    public var fetching: ClosedRange<UInt64>? {
        if case .live(_, _, let subscription) = state { return subscription.fetching }
        return nil
    }

    /// This client's unfinished ops, in mutation order.
    public var pendingOps: [PendingOp] {
        ((replica?.pending ?? []) + detached.values).sorted { $0.mut < $1.mut }
    }

    /// The time ``timerFired(now:)`` must be called next, if anything is timed.
    public func nextDeadline(now: Duration) -> Duration? {
        var earliest: Duration?
        func consider(_ time: Duration?) {
            guard let time else { return }
            if earliest.map({ time < $0 }) ?? true { earliest = time }
        }
        switch state {
        case .backoff(let until, _): consider(until)
        case .handshaking(let link), .connected(let link, _), .subscribing(let link, _, _), .live(let link, _, _):
            consider(link.checkAt)
        default: break
        }
        consider(nextFlush(now: now))
        return earliest
    }

    /// What is known of op `mut` (following resends under new mutation ids).
    public enum OpStatus: Hashable, Sendable {
        /// Done.
        case finished(OpOutcome)
        /// Still pending, now under mutation id `mut`.
        case pending(mut: UInt64)
        /// No such op (never submitted, or finished long ago).
        case unknown
    }

    /// What is known of op `original`.
    public func status(of original: UInt64) -> OpStatus {
        var mut = original
        while let next = resent[mut] { mut = next }
        if let done = finished[mut] { return .finished(done) }
        return pendingOps.contains { $0.mut == mut } ? .pending(mut: mut) : .unknown
    }

    /// A one-paragraph account of the state, for logs and bug reports.
    public var diagnostics: String {
        let pending = pendingOps.map { "\($0.mut)\($0.ackedSeq.map { "@\($0)" } ?? "")" }.joined(separator: ",")
        return "state=\(connectionState) board=\(boardID?.rawValue ?? "-") seq=\(replica?.seq ?? 0) "
            + "subscribed=\(isSubscribed) pending=[\(pending)] unsent=\(unsent) held=\(replica?.heldCount ?? 0) "
            + "fetching=\(String(describing: fetching)) requests=\(requests.count) nextMut=\(nextMut) "
            + "hold=\(String(describing: holdUntil))"
    }

    // MARK: - Helpers shared by the inputs

    /// The heartbeat interval: the server's, or 30 s before `welcome`.
    var heartbeat: Duration { .milliseconds(welcome?.heartbeatMs ?? 30_000) }

    /// Sets the connection state, emitting it when it changed.
    mutating func setConnectionState(_ new: ConnectionState, _ actions: inout [Action]) {
        guard new != connectionState else { return }
        connectionState = new
        actions.append(.emit(.connection(new)))
    }

    /// Changes the current subscription, if there is one.
    mutating func updateSubscription(_ change: (inout Subscription) -> Void) {
        switch state {
        case .subscribing(let link, let welcome, var subscription):
            change(&subscription)
            state = .subscribing(link, welcome, subscription)
        case .live(let link, let welcome, var subscription):
            change(&subscription)
            state = .live(link, welcome, subscription)
        default:
            break
        }
    }

    /// Asks for the journal to be written; returns the generation that will hold the current state (0 without a
    /// journal).
    @discardableResult
    mutating func persist(_ actions: inout [Action]) -> Int {
        guard settings.hasJournal else { return 0 }
        journalRequested += 1
        actions.append(.persist)
        return journalRequested
    }

    /// Appends a ``Action/schedule(_:)`` when the earliest deadline moved.
    mutating func reschedule(_ actions: inout [Action], now: Duration) {
        let next = nextDeadline(now: now)
        guard next != scheduled else { return }
        scheduled = next
        actions.append(.schedule(next))
    }

    /// Emits a board update when what is shown changed.
    mutating func publishBoard(
        _ cause: BoardUpdate.Cause, _ changes: BoardChanges, changedByOthers: Set<CardID> = [],
        _ actions: inout [Action]
    ) {
        guard let board = replica?.view,
            let update = publisher.publish(
                board, cause: cause, changes: changes, changedByOthers: changedByOthers,
                isConfirmed: replica?.showsConfirmed ?? false, throughMut: nextMut - 1)
        else { return }
        actions.append(.emit(.board(update)))
    }

    /// Records op `mut`'s outcome and resolves its waiters.
    mutating func complete(_ mut: UInt64, _ outcome: OpOutcome, _ actions: inout [Action]) {
        retries[mut] = nil
        finished[mut] = outcome
        finishedOrder.append(mut)
        if finishedOrder.count > finishedKept {
            let drop = finishedOrder.count - finishedKept
            for old in finishedOrder.prefix(drop) { finished[old] = nil }
            finishedOrder.removeFirst(drop)
        }
        actions.append(.resolve(.op(mut: mut, outcome)))
    }

    /// Removes `op` from wherever it is pending.
    mutating func drop(_ op: PendingOp) {
        if detached.removeValue(forKey: op.mut) == nil { _ = replica?.reject(mut: op.mut) }
        unsent.removeAll { $0 == op.mut }
        heldForJournal[op.mut] = nil
    }

    /// The pending op `mut`, wherever it is.
    func pendingOp(_ mut: UInt64) -> PendingOp? {
        detached[mut] ?? replica?.pending.first { $0.mut == mut }
    }
}
