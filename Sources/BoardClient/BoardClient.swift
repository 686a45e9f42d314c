import BoardCore
import BoardTransport
import BoardWire
import Foundation
import Logging
import NIOCore

/// A connection to `corkd` that keeps a live replica of one board.
///
/// Make one with ``withClient(_:_:)``. It connects over TLS, says `hello`, subscribes to the configured board and
/// stays connected: it reconnects on its own with backoff, resumes from the last seq, resends unfinished ops with
/// their original mutation ids, and fetches the range when it sees a gap. Ops are shown at once (optimistically) and
/// queue while offline. UIs and bots read ``events``: board updates with a diff, activity, presence, rejects and
/// connection states.
public actor BoardClient {
    /// The configuration it runs with.
    public nonisolated let configuration: ClientConfiguration
    /// Everything that happens, in order. One consumer; the stream ends when the client stops. It buffers without a
    /// bound so a UI never misses a diff: a long-running client must read it (a one-shot that only sends ops and
    /// exits need not).
    public nonisolated let events: AsyncStream<ClientEvent>

    let eventSink: AsyncStream<ClientEvent>.Continuation
    let coder = LineCoder()
    let logger: Logger
    let tls: ClientTLS
    let journalFile: JournalFile?
    let started = ContinuousClock.now

    // Connection
    var machine: ConnectionMachine
    var output: AsyncStream<ByteBuffer>.Continuation?
    var channel: (any Channel)?
    var sessionFailure: ConnectionMachine.Failure?
    var lastReceived = ContinuousClock.now
    var isStopped = false
    var connectionState: ConnectionState = .connecting(endpoint: "")
    /// The last `welcome`: user, client id, limits.
    public internal(set) var welcome: ServerMessage.Welcome?

    // Identity and ops
    var clientID: ClientID?
    var nextMut: UInt64 = 1
    /// Ops not yet handed to the current connection (all of them while offline), in mutation order.
    var unsent: [UInt64] = []
    /// Retries left per mutation id, for retryable rejects.
    var retries: [UInt64: Int] = [:]
    var bucket = TokenBucket(rate: 20, burst: 40)
    /// No op is sent before this time (seconds on ``elapsed``): set by a `rate_limited` reject.
    var holdUntil: Double?

    // Board
    var boardID: BoardID?
    var replica: Replica?
    var isSubscribed = false
    var fetching: ClosedRange<UInt64>?
    var publisher = BoardPublisher()
    /// Why the last subscribe failed (no such board, not a member); ``ready(timeout:)`` reports it and tries again.
    var subscriptionError: ClientError?
    /// A `subscribe` is on its way and unanswered.
    var isSubscribing = false
    /// Everyone on the board, by session.
    public internal(set) var presence: [SessionID: ServerMessage.PresenceEntry] = [:]
    /// Ops not on any board's replica (sent while no board is subscribed), by mut.
    var detached: [UInt64: PendingOp] = [:]

    // Waiters
    var nextRequest: UInt64 = 1
    var requests: [RequestID: Outstanding] = [:]
    var opWaiters: [UInt64: [Waiter<OpOutcome>]] = [:]
    /// Outcomes of recent ops, so ``outcome(of:timeout:)`` answers after the fact (the last `finishedKept`).
    var finished: [UInt64: OpOutcome] = [:]
    var finishedOrder: [UInt64] = []
    /// Ops sent again under a new mutation id after a retryable reject: old id → new id.
    var resent: [UInt64: UInt64] = [:]
    let finishedKept = 10_000
    var readyWaiters: [Waiter<Board>] = []
    var timerWake: CheckedContinuation<Void, Never>?
    /// Ends the connection loop's reconnect wait: 0 when ``reconnectNow()`` asks, the wait's number when its sleep
    /// is over. Only the newest is kept.
    let retryRequests: AsyncStream<Int>
    let retrySink: AsyncStream<Int>.Continuation
    /// The number of the last reconnect wait.
    var retryWaits = 0

    /// A request awaiting its answer; resent after a reconnect.
    struct Outstanding {
        var message: ClientMessage
        var waiter: Waiter<ServerMessage>
    }

    /// Parks the caller until the actor resolves what `register` stored.
    func wait<Value: Sendable>(
        for what: String, timeout: Duration, _ register: (Waiter<Value>) -> Void
    ) async throws(ClientError) -> Value {
        let deadline = ContinuousClock.now + timeout
        do {
            return try await withCheckedThrowingContinuation { continuation in
                register(Waiter(deadline: deadline, what: what, continuation: continuation))
                armTimer()
            }
        } catch {
            throw clientError(error)
        }
    }

    init(configuration: ClientConfiguration) throws(ClientError) {
        guard !configuration.endpoints.isEmpty else {
            throw ClientError(.invalidArgument, "no server address to connect to")
        }
        self.configuration = configuration
        self.logger = configuration.logger
        do {
            tls = try ClientTLS(trust: configuration.trust)
        } catch {
            throw ClientError(.tls, "cannot set up TLS: \(error)")
        }
        (events, eventSink) = AsyncStream.makeStream(of: ClientEvent.self)
        (retryRequests, retrySink) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .bufferingNewest(1))
        (journalKicks, journalKick) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        machine = ConnectionMachine(endpointCount: configuration.endpoints.count, policy: configuration.reconnect)
        boardID = configuration.board
        if let url = configuration.journal {
            let file = try JournalFile(url: url)
            let journal = try file.load()
            journalFile = file
            clientID = journal.clientID
            nextMut = journal.nextMut
            restored = journal.pending
        } else {
            journalFile = nil
        }
    }

    /// Ops read from the journal, placed on the replica once the user is known.
    var restored: [PendingOp] = []

    // Journal writes (BoardClient+Journal.swift)
    /// Wakes the journal writer; the newest wake is kept.
    let journalKicks: AsyncStream<Void>
    let journalKick: AsyncStream<Void>.Continuation
    /// The last journal generation asked for, handed to the writer, and known to be on disk.
    var journalRequested = 0
    var journalTaken = 0
    var journalWritten = 0
    /// Callers of `submit` waiting for their op to be on disk.
    var journalWaiters: [JournalWaiter] = []
    /// Ops not sent until the journal generation that holds them is on disk: mut → generation.
    var heldForJournal: [UInt64: Int] = [:]

    // MARK: - State

    /// The board as shown (confirmed + pending), once loaded.
    public var board: Board? { replica?.view }

    /// The board as the server confirmed it.
    public var confirmedBoard: Board? { replica?.confirmed }

    /// The last seq applied from the server.
    public var seq: UInt64 { replica?.seq ?? 0 }

    /// This client's unfinished ops (pending on the board, or waiting for an ack), in mutation order.
    public var pendingOps: [PendingOp] {
        ((replica?.pending ?? []) + detached.values).sorted { $0.mut < $1.mut }
    }

    /// The connection's state.
    public var state: ConnectionState { connectionState }

    /// The authenticated user, after `welcome`.
    public var user: UserID? { welcome?.user }

    /// The board subscribed to (or being subscribed to).
    public var currentBoard: BoardID? { boardID }

    // MARK: - Ops

    /// Queues `op` for the current board, shows it at once, and sends it (now, or when connected). Returns its
    /// mutation id; the outcome arrives as events (and through ``outcome(of:timeout:)``).
    @discardableResult
    public func submit(_ op: Op) async throws(ClientError) -> UInt64 {
        try await submit(.op(op))
    }

    /// Asks the server to undo this user's change with seq `seq`.
    @discardableResult
    public func undo(seq: UInt64) async throws(ClientError) -> UInt64 {
        try await submit(.undo(seq: seq))
    }

    /// Sends `op` and waits until it is complete: its delta applied to the replica (or its ack when no board is
    /// subscribed), a `noop` ack, or a reject. Throws on timeout or when the client stops.
    public func perform(_ op: Op, timeout: Duration = .seconds(30)) async throws(ClientError) -> OpOutcome {
        let mut = try await submit(.op(op))
        return try await outcome(of: mut, timeout: timeout)
    }

    /// Waits for the outcome of the op with mutation id `mut`.
    public func outcome(of original: UInt64, timeout: Duration = .seconds(30)) async throws(ClientError) -> OpOutcome {
        var mut = original
        while let next = resent[mut] { mut = next }
        if let done = finished[mut] { return done }
        if isStopped { throw stoppedError() }
        guard pendingOps.contains(where: { $0.mut == mut }) else {
            throw ClientError(.invalidArgument, "no unfinished op with mutation id \(mut)")
        }
        return try await wait(for: "the outcome of op \(mut)", timeout: timeout) { waiter in
            opWaiters[mut, default: []].append(waiter)
        }
    }

    /// Queues a request (op or undo) with the next mutation id; returns once it is in the journal on disk (when
    /// there is a journal), so a restart will send it.
    func submit(_ request: OpRequest) async throws(ClientError) -> UInt64 {
        if isStopped { throw ClientError(.stopped, "the client has stopped") }
        guard let boardID else { throw ClientError(.invalidArgument, "no board: connect with a board to send ops") }
        let mut = nextMut
        nextMut += 1
        let op = PendingOp(board: boardID, mut: mut, request: request)
        if replica != nil {
            replica!.enqueue(op, now: Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000)))
        } else {
            detached[mut] = op
        }
        retries[mut] = configuration.retryRejected
        let generation = saveJournal()
        // Not sent before it is on disk: a crash in between would otherwise forget an op the server applied.
        if journalFile != nil { heldForJournal[mut] = generation }
        unsent.append(mut)
        flushOps()
        publishBoard(cause: .local, changes: replica?.changes(removing: op) ?? .everything)
        // The write failing takes the op back (see journalDurable).
        try await journalDurable(generation, mut: mut)
        return mut
    }

    // MARK: - Requests

    /// The boards this user is a member of.
    public func boards(timeout: Duration = .seconds(30)) async throws(ClientError) -> [ServerMessage.BoardSummary] {
        let answer = try await request(timeout: timeout) { .listBoards(ClientMessage.ListBoards(req: $0)) }
        guard case .boards(let list) = answer else { throw unexpected(answer, "boards") }
        return list.boards
    }

    /// Creates a board (the user becomes its owner).
    public func createBoard(_ id: BoardID, name: String, timeout: Duration = .seconds(30)) async throws(ClientError) {
        let answer = try await request(timeout: timeout) {
            .createBoard(ClientMessage.CreateBoard(req: $0, board: id, name: name))
        }
        guard case .ok = answer else { throw unexpected(answer, "ok") }
    }

    /// One page of the current board's activity (or one card's), oldest first.
    public func history(
        card: CardID? = nil, before: UInt64? = nil, limit: Int? = nil, timeout: Duration = .seconds(30)
    ) async throws(ClientError) -> ServerMessage.HistoryPage {
        guard let boardID else { throw ClientError(.invalidArgument, "no board to read the history of") }
        let answer = try await request(timeout: timeout) {
            .history(ClientMessage.History(req: $0, board: boardID, card: card, before: before, limit: limit))
        }
        guard case .history(let page) = answer else { throw unexpected(answer, "history") }
        return page
    }

    /// Tells the board's other subscribers what this user is doing (viewing, editing or dragging a card).
    /// Dropped while disconnected (presence is ephemeral), and by a client that does not announce presence.
    public func setPresence(
        _ state: PresenceActivity, card: CardID? = nil, column: ColumnID? = nil, index: Int? = nil, away: Bool? = nil
    ) {
        guard let boardID, isSubscribed, configuration.announcesPresence else { return }
        send(.presence(ClientMessage.Presence(board: boardID, state: state, card: card, column: column, index: index, away: away)))
    }

    /// Waits until the board is loaded and the subscription is live; returns the board as shown.
    ///
    /// A board the user cannot see fails with the server's `not_found`. With `membershipGrace`, `not_found` is
    /// retried for that long first: a fresh `corkd invite` reaches the board within a second or so, and a bot
    /// started right after its invite should not fail for it.
    public func ready(
        timeout: Duration = .seconds(30), membershipGrace: Duration = .zero
    ) async throws(ClientError) -> Board {
        let graceEnd = ContinuousClock.now + membershipGrace
        while true {
            do {
                return try await readyOnce(timeout: timeout)
            } catch {
                guard error.server?.code == .notFound, ContinuousClock.now < graceEnd else { throw error }
            }
            do {
                try await Task.sleep(for: .milliseconds(200))
            } catch {
                throw ClientError(.stopped, "cancelled while waiting for the board")
            }
        }
    }

    func readyOnce(timeout: Duration) async throws(ClientError) -> Board {
        if isSubscribed, let board = replica?.view { return board }
        if isStopped { throw stoppedError() }
        guard boardID != nil else { throw ClientError(.invalidArgument, "no board to wait for") }
        if let subscriptionError {
            // Report the failure once; the next call subscribes again (membership may have been granted since).
            self.subscriptionError = nil
            throw subscriptionError
        }
        if welcome != nil, !isSubscribing { subscribe() }
        return try await wait(for: "the board", timeout: timeout) { readyWaiters.append($0) }
    }

    /// Waits until a `welcome` has arrived (for clients without a board).
    public func connected(timeout: Duration = .seconds(30)) async throws(ClientError) -> ServerMessage.Welcome {
        // A ping answered means the session is authenticated and live.
        _ = try await request(timeout: timeout) { .ping(Heartbeat(req: $0)) }
        guard let welcome else { throw ClientError(.protocolError, "pong before welcome") }
        return welcome
    }

    /// Follows another board: the replica is replaced and pending ops of the old board stay queued for it.
    public func switchBoard(to id: BoardID) {
        guard id != boardID else { return }
        if let old = boardID, isSubscribed { send(.unsubscribe(ClientMessage.Unsubscribe(board: old))) }
        for op in replica?.pending ?? [] {
            // An acked op is durable; its delta just will not reach this replica any more.
            if let seq = op.ackedSeq { complete(op.mut, .applied(seq: seq)) } else { detached[op.mut] = op }
        }
        boardID = id
        replica = nil
        isSubscribed = false
        publisher.reset()
        presence = [:]
        fetching = nil
        if welcome != nil { subscribe() }
    }

    func request(
        timeout: Duration, _ make: (RequestID) -> ClientMessage
    ) async throws(ClientError) -> ServerMessage {
        if isStopped { throw stoppedError() }
        let id = RequestID.int(nextRequest)
        nextRequest += 1
        let message = make(id)
        let connected = welcome != nil
        let answer: ServerMessage = try await wait(for: "the answer to \(message.type)", timeout: timeout) { waiter in
            requests[id] = Outstanding(message: message, waiter: waiter)
            if connected { send(message) }
        }
        if case .error(let error) = answer { throw ClientError.server(error) }
        return answer
    }

    func unexpected(_ message: ServerMessage, _ wanted: String) -> ClientError {
        ClientError(.protocolError, "expected \(wanted), got \(message.type)")
    }

    func stoppedError() -> ClientError {
        if case .stopped(let error?) = connectionState { return error }
        return ClientError(.stopped, "the client has stopped")
    }
}

extension BoardClient {
    /// A one-paragraph account of the client's state, for logs and bug reports.
    public func diagnostics() -> String {
        let pending = pendingOps.map { "\($0.mut)\($0.ackedSeq.map { "@\($0)" } ?? "")" }.joined(separator: ",")
        return "state=\(connectionState) board=\(boardID?.rawValue ?? "-") seq=\(seq) subscribed=\(isSubscribed) "
            + "pending=[\(pending)] unsent=\(unsent) held=\(replica?.heldCount ?? 0) fetching=\(String(describing: fetching)) "
            + "waiters=\(opWaiters.keys.sorted()) requests=\(requests.count) nextMut=\(nextMut) hold=\(String(describing: holdUntil))"
    }
}
