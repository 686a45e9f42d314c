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
/// queue while offline. UIs and bots read ``events``: board updates saying what changed, activity, presence,
/// rejects and connection states.
///
/// All of that logic is the ``ClientSession`` state machine; this actor is its driver: it feeds the machine socket
/// lines, dial results, timer firings and journal writes, carries out the actions it returns, and keeps the callers
/// waiting for answers.
public actor BoardClient {
    /// The configuration it runs with.
    public nonisolated let configuration: ClientConfiguration
    /// Everything that happens, in order. One consumer; the stream ends when the client stops. It buffers without a
    /// bound so a UI never misses an update: a long-running client must read it (a one-shot that only sends ops and
    /// exits need not).
    public nonisolated let events: AsyncStream<ClientEvent>

    let eventSink: AsyncStream<ClientEvent>.Continuation
    let coder = LineCoder()
    let logger: Logger
    /// TLS for ``Transport/connect``; nil with a ``ClientConfiguration/connector``, which opens its own channel.
    let tls: ClientTLS?
    let journalFile: JournalFile?
    let started = ContinuousClock.now

    /// The state machine.
    var session: ClientSession

    // Connection
    /// Endpoints to dial, as the session asks (``ClientSession/Action/connect(endpoint:)``).
    let dials: AsyncStream<Int>
    let dialSink: AsyncStream<Int>.Continuation
    var output: AsyncStream<ByteBuffer>.Continuation?
    var channel: (any Channel)?

    // Waiters
    var requests: [RequestID: Waiter<ServerMessage>] = [:]
    var opWaiters: [UInt64: [Waiter<OpOutcome>]] = [:]
    var readyWaiters: [Waiter<Board>] = []
    /// Callers of `submit` waiting for their op to be on disk, by mut.
    var durableWaiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]

    // The one timer
    /// The session's deadline (``ClientSession/Action/schedule(_:)``).
    var sessionDeadline: ContinuousClock.Instant?
    var timerWake: CheckedContinuation<Void, Never>?
    /// Waiters made so far (their ids).
    var waiterCount: UInt64 = 0
    /// Where the connection loop is (for `diagnostics()`).
    var connectionPhase = "not started"

    // Journal writes (BoardClient+Journal.swift)
    /// Wakes the journal writer; the newest wake is kept.
    let journalKicks: AsyncStream<Void>
    let journalKick: AsyncStream<Void>.Continuation

    init(configuration: ClientConfiguration) throws(ClientError) {
        guard !configuration.endpoints.isEmpty else {
            throw ClientError(.invalidArgument, "no server address to connect to")
        }
        self.configuration = configuration
        self.logger = configuration.logger
        do {
            tls = configuration.connector == nil ? try ClientTLS(trust: configuration.trust) : nil
        } catch {
            throw ClientError(.tls, "cannot set up TLS: \(error)")
        }
        (events, eventSink) = AsyncStream.makeStream(of: ClientEvent.self)
        (dials, dialSink) = AsyncStream.makeStream(of: Int.self)
        (journalKicks, journalKick) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        var journal = ClientJournal()
        if let url = configuration.journal {
            let file = try JournalFile(url: url)
            journal = try file.load()
            journalFile = file
        } else {
            journalFile = nil
        }
        session = ClientSession(settings: configuration.sessionSettings, journal: journal)
    }

    // MARK: - State

    /// The last `welcome`: user, client id, limits.
    public var welcome: Welcome? { session.welcome }

    /// Everyone on the board, by session.
    public var presence: [SessionID: PresenceEntry] { session.presence }

    /// The board as shown (confirmed + pending), once loaded.
    public var board: Board? { session.replica?.view }

    /// The board as the server confirmed it.
    public var confirmedBoard: Board? { session.replica?.confirmed }

    /// The last seq applied from the server.
    public var seq: UInt64 { session.replica?.seq ?? 0 }

    /// This client's unfinished ops (pending on the board, or waiting for an ack), in mutation order.
    public var pendingOps: [PendingOp] { session.pendingOps }

    /// The connection's state.
    public var state: ConnectionState { session.connectionState }

    /// The authenticated user, after `welcome`.
    public var user: UserID? { session.welcome?.user }

    /// The board subscribed to (or being subscribed to).
    public var currentBoard: BoardID? { session.boardID }

    /// Seconds since the client started, on the monotonic clock: the session's time.
    var elapsed: Duration { ContinuousClock.now - started }

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
        switch session.status(of: original) {
        case .finished(let outcome):
            return outcome
        case .unknown:
            if session.isStopped { throw stoppedError() }
            throw ClientError(.invalidArgument, "no unfinished op with mutation id \(original)")
        case .pending(let mut):
            if session.isStopped { throw stoppedError() }
            return try await wait(for: "the outcome of op \(mut)", timeout: timeout) { waiter in
                opWaiters[mut, default: []].append(waiter)
            }
        }
    }

    /// Queues a request (op or undo) with the next mutation id; returns once it is in the journal on disk (when
    /// there is a journal), so a restart will send it. A failed write takes the op back before this throws.
    func submit(_ request: OpRequest) async throws(ClientError) -> UInt64 {
        let wall = Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000))
        let (mut, actions) = try session.submit(request, wallClock: wall, now: elapsed)
        carryOut(actions)
        guard session.awaitsDurable(mut) else { return mut }
        do {
            try await withCheckedThrowingContinuation { durableWaiters[mut] = $0 }
        } catch {
            throw clientError(error)
        }
        return mut
    }

    // MARK: - Requests

    /// The boards this user is a member of.
    public func boards(timeout: Duration = .seconds(30)) async throws(ClientError) -> [BoardSummary] {
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

    /// Archives a board for everyone (its owner only): answered once the server has applied it.
    public func archiveBoard(_ id: BoardID, timeout: Duration = .seconds(45)) async throws(ClientError) {
        let answer = try await request(timeout: timeout) { .archiveBoard(ClientMessage.ArchiveBoard(req: $0, board: id)) }
        guard case .ok = answer else { throw unexpected(answer, "ok") }
    }

    /// One page of the current board's activity (or one card's), oldest first.
    public func history(
        card: CardID? = nil, before: UInt64? = nil, limit: Int? = nil, timeout: Duration = .seconds(30)
    ) async throws(ClientError) -> HistoryPage {
        guard let boardID = session.boardID else { throw ClientError(.invalidArgument, "no board to read the history of") }
        let answer = try await request(timeout: timeout) {
            .history(ClientMessage.History(req: $0, board: boardID, card: card, before: before, limit: limit))
        }
        guard case .history(let page) = answer else { throw unexpected(answer, "history") }
        return page
    }

    /// Tells the board's other subscribers what this user is doing (viewing, editing or dragging a card).
    /// Dropped while disconnected (presence is ephemeral), and by a client that does not announce presence.
    /// `awayNote` is what the person says about being away (one line, at most 80 characters), sent with `away` only.
    public func setPresence(
        _ state: PresenceActivity, card: CardID? = nil, column: ColumnID? = nil, index: Int? = nil, away: Bool? = nil,
        awayNote: String? = nil
    ) {
        carryOut(session.presenceUpdate(state, card: card, column: column, index: index, away: away, awayNote: awayNote))
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
        switch session.awaitBoard() {
        case .ready(let board):
            return board
        case .failed(let error):
            if session.isStopped { throw stoppedError() }
            throw error
        case .wait(let actions):
            carryOut(actions)
            return try await wait(for: "the board", timeout: timeout) { readyWaiters.append($0) }
        }
    }

    /// Waits until a `welcome` has arrived (for clients without a board).
    public func connected(timeout: Duration = .seconds(30)) async throws(ClientError) -> Welcome {
        // A ping answered means the session is authenticated and live.
        _ = try await request(timeout: timeout) { .ping(Heartbeat(req: $0)) }
        guard let welcome = session.welcome else { throw ClientError(.protocolError, "pong before welcome") }
        return welcome
    }

    /// Follows another board: the replica is replaced and pending ops of the old board stay queued for it.
    public func switchBoard(to id: BoardID) {
        carryOut(session.switchBoard(to: id, now: elapsed))
    }

    func request(
        timeout: Duration, _ make: (RequestID) -> ClientMessage
    ) async throws(ClientError) -> ServerMessage {
        if session.isStopped { throw stoppedError() }
        let (id, actions) = try session.request(make)
        let answer: ServerMessage = try await wait(for: "the answer to request \(id)", timeout: timeout) { waiter in
            requests[id] = waiter
            carryOut(actions)
        }
        if case .error(let error) = answer { throw ClientError.server(error) }
        return answer
    }

    /// Parks the caller until the actor resolves what `register` stored, the timeout passes, or the caller's task
    /// is cancelled.
    ///
    /// Cancellation ends the wait on its own: the timeout is the timer loop's job, and a cancelled task tree (a bot
    /// that cancels its work, or a task group that gave up after one of its clients failed) cancels that loop too.
    /// Waits that only the timer ended then never ended at all, and the caller hung.
    func wait<Value: Sendable>(
        for what: String, timeout: Duration, _ register: (Waiter<Value>) -> Void
    ) async throws(ClientError) -> Value {
        let deadline = ContinuousClock.now + timeout
        waiterCount &+= 1
        let id = waiterCount
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    register(Waiter(id: id, deadline: deadline, what: what, continuation: continuation))
                    armTimer()
                }
            } onCancel: {
                // Runs on the cancelling thread; the waiter is registered by the time the actor runs this.
                Task { await self.cancelWaiter(id) }
            }
        } catch {
            throw clientError(error)
        }
    }

    /// Ends the wait `id` (its task was cancelled), wherever it is parked.
    func cancelWaiter(_ id: UInt64) {
        if let (req, waiter) = requests.first(where: { $0.value.id == id }) {
            requests[req] = nil
            session.abandonRequest(req)
            waiter.resolve(.failure(waiter.cancelledError))
            return
        }
        for (mut, waiters) in opWaiters {
            guard let index = waiters.firstIndex(where: { $0.id == id }) else { continue }
            var rest = waiters
            let waiter = rest.remove(at: index)
            opWaiters[mut] = rest.isEmpty ? nil : rest
            waiter.resolve(.failure(waiter.cancelledError))
            return
        }
        if let index = readyWaiters.firstIndex(where: { $0.id == id }) {
            let waiter = readyWaiters.remove(at: index)
            session.boardWaitEnded()
            waiter.resolve(.failure(waiter.cancelledError))
        }
    }

    func unexpected(_ message: ServerMessage, _ wanted: String) -> ClientError {
        ClientError(.protocolError, "expected \(wanted), got \(message.type)")
    }

    func stoppedError() -> ClientError {
        if case .stopped(let error?) = session.connectionState { return error }
        return ClientError(.stopped, "the client has stopped")
    }

    /// A one-paragraph account of the client's state, for logs and bug reports.
    public func diagnostics() -> String {
        session.diagnostics + " waiters=\(opWaiters.keys.sorted()) requests=\(requests.count) loop=\(connectionPhase)"
            + " timer=\(timerWake == nil ? "running" : "waiting") next=\(nextDeadline.map { "\($0 - .now)" } ?? "none")"
    }
}

extension ClientConfiguration {
    /// What the session machine needs of the configuration.
    var sessionSettings: ClientSession.Settings {
        var settings = ClientSession.Settings(
            endpoints: endpoints.map(\.description), token: token, board: board, policy: reconnect,
            clientName: clientName, announcesPresence: announcesPresence, paceOps: paceOps,
            retryRejected: retryRejected, hasJournal: journal != nil, sharedBoards: sharedBoards)
        settings.keepsPresence = keepsPresence
        return settings
    }
}
