import BoardCore
import BoardWire
import Foundation
import NIOCore

extension BoardClient {
    /// Handles one line from the server.
    func receive(_ line: ByteBuffer) {
        let message: ServerMessage
        do {
            message = try coder.decodeServer(line.readableBytesView)
        } catch {
            // A line this client cannot read: newer server, or a bug. Skip it; the seq check catches a lost delta.
            logger.debug("undecodable line from the server", metadata: ["error": "\(error)"])
            return
        }
        switch message {
        case .welcome(let welcome): welcomed(welcome)
        case .snapshot(let snapshot): loadSnapshot(snapshot)
        case .subscribed(let message): subscriptionLive(message)
        case .delta(let delta): apply(delta)
        case .ack(let ack): acknowledged(ack)
        case .reject(let reject): rejected(reject)
        case .presenceState(let state):
            guard state.board == boardID else { return }
            presence = Dictionary(state.sessions.map { ($0.session, $0) }, uniquingKeysWith: { $1 })
            eventSink.yield(.presence(PresenceEvent(sessions: presence, change: .state)))
        case .presence(let update):
            guard update.board == boardID else { return }
            presence[update.entry.session] = update.entry
            eventSink.yield(.presence(PresenceEvent(sessions: presence, change: .updated(update.entry))))
        case .presenceLeft(let left):
            guard left.board == boardID else { return }
            presence[left.session] = nil
            eventSink.yield(.presence(PresenceEvent(sessions: presence, change: .left(session: left.session, user: left.user))))
        case .ok(let ok):
            if let req = ok.req, req == fetchRequest, ok.board == boardID {
                let asked = fetching
                fetching = nil
                if let gap = replica?.gap {
                    // A fetch that did not move the gap (a delta this client cannot read) would repeat for ever.
                    if let asked, gap.lowerBound <= asked.lowerBound { resubscribeFresh() } else { requestFetch(gap) }
                }
            }
            answer(message)
        case .boards, .history, .pong:
            answer(message)
        case .ping(let ping):
            send(.pong(Heartbeat(req: ping.req)))
        case .bye(let bye):
            sessionFailure = ConnectionMachine.Failure(
                ClientError(.disconnected, "the server is closing (\(bye.reason ?? "bye"))"),
                retryAfter: bye.retryAfterMs.map { .milliseconds(Int64($0)) })
        case .error(let error):
            serverError(error)
        }
    }

    /// The request id used for gap fetches.
    var fetchRequest: RequestID { .string("gap") }

    func welcomed(_ welcome: ServerMessage.Welcome) {
        self.welcome = welcome
        machine.welcomed()
        if clientID != welcome.clientID {
            clientID = welcome.clientID
            saveJournal()
        }
        bucket = TokenBucket(
            rate: Double(welcome.limits.rateOpsPerS) * 0.9, burst: Double(max(1, welcome.limits.rateBurst / 2)))
        if !restored.isEmpty {
            for op in restored { detached[op.mut] = op }
            restored = []
        }
        replica?.setUser(welcome.user)
        replica?.clientID = welcome.clientID
        setConnectionState(.connected(endpoint: endpointName, user: welcome.user))
        if boardID != nil { subscribe() }
        for (_, outstanding) in requests.sorted(by: { $0.key.description < $1.key.description }) {
            send(outstanding.message)
        }
        unsent = pendingOps.filter { $0.ackedSeq == nil }.map(\.mut)
        flushOps()
    }

    var endpointName: String {
        if case .connected(let index) = machine.state { return configuration.endpoints[index].description }
        return ""
    }

    /// Subscribes to the current board, resuming from the replica's seq when it has one.
    func subscribe() {
        guard let boardID else { return }
        isSubscribing = true
        let presence: Bool? = configuration.announcesPresence ? nil : false
        if let replica, replica.isLoaded, let epoch = replica.epoch {
            send(
                .subscribe(
                    ClientMessage.Subscribe(
                        req: .string("sub"), board: boardID, since: replica.seq, epoch: epoch, presence: presence)))
        } else {
            send(.subscribe(ClientMessage.Subscribe(req: .string("sub"), board: boardID, presence: presence)))
        }
    }

    func loadSnapshot(_ snapshot: ServerMessage.Snapshot) {
        guard snapshot.board == boardID, let welcome else { return }
        if replica == nil {
            var fresh = Replica(board: snapshot.board, user: welcome.user)
            fresh.clientID = clientID
            let mine = detached.values.filter { $0.board == snapshot.board }
            fresh.restore(mine)
            for op in mine { detached[op.mut] = nil }
            replica = fresh
        }
        let epochBefore = replica!.epoch
        let done = replica!.load(snapshot.state, seq: snapshot.seq, epoch: snapshot.epoch)
        for op in done { complete(op.mut, .applied(seq: op.ackedSeq ?? snapshot.seq)) }
        if let epochBefore, epochBefore != snapshot.epoch {
            // The store was restored: acks from the old epoch may be void. Send every pending op again (the server
            // answers a mut it applied with its ack, so nothing doubles).
            let waiting = Set(unsent)
            unsent = (unsent + replica!.pending.map(\.mut).filter { !waiting.contains($0) }).sorted()
            flushOps()
        }
        if fetching != nil, snapshot.req == fetchRequest { fetching = nil }
        saveJournal()
        publishBoard(cause: .snapshot, changes: .everything)
    }

    func subscriptionLive(_ subscribed: ServerMessage.Subscribed) {
        guard subscribed.board == boardID, var current = replica else { return }
        current.subscribed(epoch: subscribed.epoch)
        replica = current
        isSubscribed = true
        isSubscribing = false
        if subscribed.seq > current.seq { requestFetch(current.seq + 1...subscribed.seq) }
        let board = current.view!
        let waiters = readyWaiters
        readyWaiters = []
        for waiter in waiters { waiter.resolve(.success(board)) }
    }

    func apply(_ delta: ServerMessage.Delta) {
        guard delta.board == boardID, replica != nil else { return }
        let result = replica!.receive(delta)
        // Completions first: a later delta in the same batch may fail to apply, and these ops are done either way.
        for (op, seq) in result.completed { complete(op.mut, .applied(seq: seq)) }
        if let rejection = result.diverged {
            // The replica no longer matches the server's board: start over from a snapshot.
            logger.debug("replica diverged; resubscribing", metadata: ["reason": "\(rejection)"])
            resubscribeFresh()
            return
        }
        if let gap = result.gap { requestFetch(gap) }
        guard !result.applied.isEmpty else { return }
        let confirmed = replica!.confirmed!
        var others = Set<CardID>()
        for applied in result.applied {
            let own = applied.clientID == clientID && applied.actor == welcome?.user
            if !own, let card = applied.activity.card { others.insert(card) }
            eventSink.yield(.activity(ActivityEvent(activity: applied.activity, op: applied.op, isOwn: own, board: confirmed)))
        }
        if !result.completed.isEmpty { saveJournal() }
        publishBoard(cause: .deltas, changes: result.changes, changedByOthers: others)
    }

    func acknowledged(_ ack: ServerMessage.Ack) {
        if let op = detached[ack.mut], op.board == ack.board {
            detached[ack.mut] = nil
            saveJournal()
            complete(ack.mut, ack.noop ? .noop(seq: ack.seq) : .applied(seq: ack.seq))
            return
        }
        guard ack.board == boardID, replica != nil else { return }
        if let done = replica!.acknowledge(mut: ack.mut, seq: ack.seq, noop: ack.noop, subscribed: isSubscribed) {
            saveJournal()
            complete(done.mut, ack.noop ? .noop(seq: ack.seq) : .applied(seq: ack.seq))
            publishBoard(cause: .deltas, changes: replica?.changes(removing: done) ?? .everything)
        } else {
            saveJournal()
        }
    }

    func rejected(_ reject: ServerMessage.Reject) {
        let op: PendingOp?
        if let detachedOp = detached[reject.mut] {
            op = detachedOp
        } else if reject.board == boardID {
            op = replica?.pending.first { $0.mut == reject.mut }
        } else {
            op = nil
        }
        guard let op else { return }
        if reject.code.retryable, case let left = retries[op.mut, default: configuration.retryRejected], left > 0 {
            retryLater(op, reject: reject, triesLeft: left - 1)
            return
        }
        drop(op)
        retries[op.mut] = nil
        saveJournal()
        eventSink.yield(.rejected(RejectedOp(op: op, reject: reject)))
        complete(op.mut, .rejected(reject))
        publishBoard(cause: .rollback, changes: replica?.changes(removing: op) ?? .everything)
    }

    /// Removes `op` from wherever it is pending.
    func drop(_ op: PendingOp) {
        if detached.removeValue(forKey: op.mut) == nil { _ = replica?.reject(mut: op.mut) }
        unsent.removeAll { $0 == op.mut }
        heldForJournal[op.mut] = nil
    }

    /// Sends a retryable-rejected op again later, with a new mutation id, so that it is ordered after what was sent
    /// meanwhile (the server would also take the old one: a mut never applied is evaluated again). Its waiters follow
    /// it.
    func retryLater(_ op: PendingOp, reject: ServerMessage.Reject, triesLeft: Int) {
        drop(op)
        retries[op.mut] = nil
        let mut = nextMut
        nextMut += 1
        let again = PendingOp(board: op.board, mut: mut, request: op.request)
        if op.board == boardID, replica != nil {
            replica!.enqueue(again, now: Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000)))
        } else {
            detached[mut] = again
        }
        retries[mut] = triesLeft
        resent[op.mut] = mut
        if let waiters = opWaiters.removeValue(forKey: op.mut) { opWaiters[mut] = waiters }
        if journalFile != nil { heldForJournal[mut] = saveJournal() }
        let now = elapsed.seconds
        bucket.drain(now: now)
        holdUntil = now + Double(reject.retryAfterMs ?? 100) / 1000
        unsent.append(mut)
        unsent.sort()
        flushOps()
        armTimer()
    }

    func serverError(_ error: WireError) {
        if error.closesConnection {
            sessionFailure = ConnectionMachine.Failure(
                .server(error), isFatal: ClientError.server(error).isFatal,
                retryAfter: error.retryAfterMs.map { .milliseconds(Int64($0)) })
            if sessionFailure!.isFatal { stopAll(.server(error)) }
            return
        }
        if let req = error.req, req == fetchRequest, error.board == nil || error.board == boardID {
            fetching = nil
        } else if let req = error.req, req == .string("sub"), error.board == nil || error.board == boardID {
            // The subscription failed (no such board, or not a member): nobody will get a board.
            let failure = ClientError.server(error)
            isSubscribing = false
            let waiters = readyWaiters
            readyWaiters = []
            if waiters.isEmpty { subscriptionError = failure }
            for waiter in waiters { waiter.resolve(.failure(failure)) }
        } else if let req = error.req, requests[req] != nil {
            answer(.error(error))
            return
        } else if let mut = error.mut {
            // The op line did not decode (e.g. unknown_op): it will never apply.
            let op = detached[mut] ?? replica?.pending.first { $0.mut == mut }
            if let op {
                drop(op)
                saveJournal()
                publishBoard(cause: .rollback, changes: replica?.changes(removing: op) ?? .everything)
            }
            for waiter in opWaiters.removeValue(forKey: mut) ?? [] { waiter.resolve(.failure(.server(error))) }
            return
        } else if error.code == .resyncRequired, let boardID, error.board == boardID {
            resubscribeFresh()
            return
        } else if error.code == .notFound, error.board == boardID {
            isSubscribed = false
        }
        eventSink.yield(.serverError(error))
    }

    /// Drops the confirmed board and subscribes again without `since` (a snapshot follows). Pending ops are kept:
    /// they move aside and go back on top of the snapshot.
    func resubscribeFresh() {
        for op in replica?.pending ?? [] { detached[op.mut] = op }
        replica = nil
        isSubscribed = false
        subscribe()
    }

    /// Resolves the request the message answers.
    func answer(_ message: ServerMessage) {
        guard let req = message.req, let outstanding = requests.removeValue(forKey: req) else { return }
        outstanding.waiter.resolve(.success(message))
    }

    /// Resolves everyone waiting for op `mut`.
    func complete(_ mut: UInt64, _ outcome: OpOutcome) {
        retries[mut] = nil
        finished[mut] = outcome
        finishedOrder.append(mut)
        if finishedOrder.count > finishedKept {
            let drop = finishedOrder.count - finishedKept
            for old in finishedOrder.prefix(drop) { finished[old] = nil }
            finishedOrder.removeFirst(drop)
        }
        for waiter in opWaiters.removeValue(forKey: mut) ?? [] { waiter.resolve(.success(outcome)) }
    }

    /// Asks for the deltas in `range` again (once at a time, at most `fetch_max`).
    func requestFetch(_ range: ClosedRange<UInt64>) {
        guard fetching == nil, let boardID, isSubscribed else { return }
        let most = UInt64(max(1, welcome?.limits.fetchMax ?? 1_000))
        let to = min(range.upperBound, range.lowerBound + most - 1)
        fetching = range.lowerBound...to
        send(.fetch(ClientMessage.Fetch(req: fetchRequest, board: boardID, from: range.lowerBound, to: to)))
    }
}
