import BoardCore
import BoardWire

/// What the owner asks for: ops, requests, the board, presence, another board; and the journal writer's reports.
extension ClientSession {
    /// Queues a request (op or undo) for the current board under the next mutation id, shows it at once and sends
    /// it when it may (connected, paced, and on disk when there is a journal). With a journal, the submitter waits
    /// for ``Resolution/durable(mut:)`` (or ``Resolution/notDurable(mut:_:)``) of the returned mut.
    public mutating func submit(
        _ request: OpRequest, wallClock: Timestamp, now: Duration
    ) throws(ClientError) -> (mut: UInt64, actions: [Action]) {
        if isStopped { throw ClientError(.stopped, "the client has stopped") }
        guard let boardID else { throw ClientError(.invalidArgument, "no board: connect with a board to send ops") }
        var actions: [Action] = []
        let mut = nextMut
        nextMut += 1
        let op = PendingOp(board: boardID, mut: mut, request: request)
        if replica != nil {
            replica!.enqueue(op, now: wallClock)
        } else {
            detached[mut] = op
        }
        retries[mut] = settings.retryRejected
        let generation = persist(&actions)
        // Not sent before it is on disk: a crash in between would otherwise forget an op the server applied.
        if settings.hasJournal {
            heldForJournal[mut] = generation
            awaitingDurable[mut] = generation
        }
        unsent.append(mut)
        flushOps(now: now, &actions)
        publishBoard(.local, replica?.changes(removing: op) ?? .everything, &actions)
        reschedule(&actions, now: now)
        return (mut, actions)
    }

    /// Whether the submitter of `mut` must wait for ``Resolution/durable(mut:)``.
    public func awaitsDurable(_ mut: UInt64) -> Bool { awaitingDurable[mut] != nil }

    /// Registers a request; it is sent now when authenticated, else on `welcome`, and again after a reconnect until
    /// answered (``Resolution/answer(_:_:)``).
    public mutating func request(_ make: (RequestID) -> ClientMessage) throws(ClientError) -> (RequestID, [Action]) {
        if isStopped { throw ClientError(.stopped, "the client has stopped") }
        let id = RequestID.int(nextRequest)
        nextRequest += 1
        let message = make(id)
        requests[id] = message
        return (id, welcome == nil ? [] : [.send(message)])
    }

    /// The caller of request `id` gave up (timed out): it is not resent.
    public mutating func abandonRequest(_ id: RequestID) {
        requests[id] = nil
    }

    /// What ``awaitBoard()`` says.
    public enum BoardWait: Sendable {
        /// The board is loaded and live.
        case ready(Board)
        /// The subscription failed (reported once; the next call subscribes again).
        case failed(ClientError)
        /// Wait for ``Resolution/board(_:)`` or ``Resolution/boardFailed(_:)``; carry out the actions.
        case wait([Action])
    }

    /// A caller wants the board: it has it, hears why not, or waits (a subscribe goes out when none is on its way).
    public mutating func awaitBoard() -> BoardWait {
        if isSubscribed, let board = replica?.view { return .ready(board) }
        if case .stopped(let error) = state { return .failed(error ?? ClientError(.stopped, "the client has stopped")) }
        guard boardID != nil else { return .failed(ClientError(.invalidArgument, "no board to wait for")) }
        if let failure = subscriptionError {
            // Report the failure once; the next call subscribes again (membership may have been granted since).
            subscriptionError = nil
            return .failed(failure)
        }
        var actions: [Action] = []
        if case .connected = state { subscribe(&actions) }
        boardWaiters += 1
        return .wait(actions)
    }

    /// A caller waiting for the board gave up (timed out).
    public mutating func boardWaitEnded() {
        boardWaiters = max(0, boardWaiters - 1)
    }

    /// Tells the board's other subscribers what this user is doing. Dropped while not subscribed, and by a client
    /// that does not announce presence.
    public func presenceUpdate(
        _ activity: PresenceActivity, card: CardID?, column: ColumnID?, index: Int?, away: Bool?, awayNote: String? = nil
    ) -> [Action] {
        guard let boardID, isSubscribed, settings.announcesPresence else { return [] }
        return [
            .send(
                .presence(
                    ClientMessage.Presence(
                        board: boardID, state: activity, card: card, column: column, index: index, away: away,
                        awayNote: away == true ? awayNote : nil)))
        ]
    }

    /// Follows another board: the replica is dropped and pending ops of the old board stay queued for it.
    public mutating func switchBoard(to id: BoardID, now: Duration) -> [Action] {
        guard id != boardID else { return [] }
        var actions: [Action] = []
        if let old = boardID, isSubscribed { actions.append(.send(.unsubscribe(ClientMessage.Unsubscribe(board: old)))) }
        for op in replica?.pending ?? [] {
            // An acked op is durable; its delta just will not reach this replica any more.
            if let seq = op.ackedSeq { complete(op.mut, .applied(seq: seq), &actions) } else { detached[op.mut] = op }
        }
        boardID = id
        replica = nil
        publisher.reset()
        switch state {
        case .subscribing(let link, let welcome, _), .live(let link, let welcome, _):
            state = .connected(link, welcome)
            subscribe(&actions)
        case .connected:
            subscribe(&actions)
        default:
            break
        }
        reschedule(&actions, now: now)
        return actions
    }

    // MARK: - Journal

    /// The state to write next and its generation, when a write was asked for since the last one taken.
    public mutating func journalToWrite() -> (journal: ClientJournal, generation: Int)? {
        guard journalRequested > journalTaken else { return nil }
        journalTaken = journalRequested
        return (ClientJournal(clientID: clientID, nextMut: nextMut, pending: pendingOps + restored), journalRequested)
    }

    /// A write of `generation` ended. Ops it holds may be sent now and their submitters return; when it failed,
    /// their ops are taken back first (an op the caller saw fail must never be sent by a later reconnect).
    public mutating func journalWritten(_ generation: Int, error: ClientError?, now: Duration) -> [Action] {
        var actions: [Action] = []
        if error == nil { journalWritten = max(journalWritten, generation) }
        for (mut, held) in awaitingDurable.sorted(by: { $0.key < $1.key }) where held <= generation {
            awaitingDurable[mut] = nil
            if let error {
                if let op = pendingOp(mut) {
                    drop(op)
                    publishBoard(.rollback, replica?.changes(removing: op) ?? .everything, &actions)
                }
                actions.append(.resolve(.notDurable(mut: mut, error)))
            } else {
                actions.append(.resolve(.durable(mut: mut)))
            }
        }
        // Ops without a submitter waiting (resent under a new mut) go as after a failed write: best effort.
        heldForJournal = heldForJournal.filter { $0.value > generation }
        flushOps(now: now, &actions)
        reschedule(&actions, now: now)
        return actions
    }

    // MARK: - Sending ops

    /// Sends queued ops while authenticated and the pacing bucket allows; the timer calls again when it refills.
    mutating func flushOps(now: Duration, _ actions: inout [Action]) {
        guard welcome != nil, !unsent.isEmpty else { return }
        if let holdUntil, now < holdUntil { return }
        holdUntil = nil
        let seconds = now.seconds
        while let mut = unsent.first {
            guard let op = pendingOp(mut) else {
                unsent.removeFirst()
                continue
            }
            // Not on disk yet: it (and the ops after it) waits for the journal writer.
            if heldForJournal[mut] != nil { return }
            if settings.paceOps, !bucket.take(now: seconds) { return }
            unsent.removeFirst()
            actions.append(.send(op.message))
        }
    }

    /// When the next paced send may happen, if ops are waiting and could be sent then (nil offline, or while the
    /// next op waits for the journal: the writer's report flushes), so the timer never spins on a past deadline.
    func nextFlush(now: Duration) -> Duration? {
        guard let first = unsent.first, welcome != nil, heldForJournal[first] == nil else { return nil }
        if let holdUntil, holdUntil > now { return holdUntil }
        var bucket = bucket
        return now + .nanoseconds(Int64(bucket.wait(now: now.seconds) * 1e9))
    }
}
