import BoardCore
import BoardWire

/// Lines from the server.
extension ClientSession {
    /// The request id of gap fetches.
    static let fetchRequest = RequestID.string("gap")
    /// The request id of subscribes.
    static let subscribeRequest = RequestID.string("sub")

    /// A line arrived that did not decode (a newer server, or a bug): it still shows the server is alive. The seq
    /// check catches a lost delta.
    public mutating func receivedUnreadable(now: Duration) {
        touch(now: now)
    }

    /// One message from the server.
    public mutating func received(_ message: ServerMessage, now: Duration) -> [Action] {
        switch state {
        case .handshaking, .connected, .subscribing, .live: break
        default: return []
        }
        touch(now: now)
        var actions: [Action] = []
        switch message {
        case .welcome(let welcome): welcomed(welcome, now: now, &actions)
        case .snapshot(let snapshot): loadSnapshot(snapshot, now: now, &actions)
        case .subscribed(let subscribed): subscriptionLive(subscribed, &actions)
        case .delta(let delta): apply(delta, &actions)
        case .ack(let ack): acknowledged(ack, &actions)
        case .reject(let reject): rejected(reject, now: now, &actions)
        case .presenceState(let presenceState):
            // Presence belongs to the subscription: none is kept (or shown) while no board is subscribed.
            guard presenceState.board == boardID, subscription != nil else { break }
            let everyone = Dictionary(presenceState.sessions.map { ($0.session, $0) }, uniquingKeysWith: { $1 })
            if settings.keepsPresence { updateSubscription { $0.presence = everyone } }
            actions.append(.emit(.presence(PresenceEvent(sessions: everyone, change: .state))))
        case .presence(let update):
            guard update.board == boardID, subscription != nil else { break }
            let entry = update.entry
            if settings.keepsPresence { updateSubscription { $0.presence[entry.session] = entry } }
            actions.append(.emit(.presence(PresenceEvent(sessions: presence, change: .updated(entry)))))
        case .presenceLeft(let left):
            guard left.board == boardID, subscription != nil else { break }
            if settings.keepsPresence { updateSubscription { $0.presence[left.session] = nil } }
            actions.append(
                .emit(.presence(PresenceEvent(sessions: presence, change: .left(session: left.session, user: left.user)))))
        case .ok(let ok):
            if let req = ok.req, req == Self.fetchRequest, ok.board == boardID { fetched(now: now, &actions) }
            answer(message, &actions)
        case .boards, .history, .pong, .hooks, .notify:
            answer(message, &actions)
        case .inbox(let page):
            inboxUnread = page.unread
            answer(message, &actions)
        case .inboxEntry(let new):
            // The user's, across boards: not tied to the subscription.
            inboxUnread = new.unread
            actions.append(.emit(.inbox(.entry(new.entry, unread: new.unread))))
        case .inboxRead(let marked):
            inboxUnread = marked.unread
            actions.append(.emit(.inbox(.read(ids: marked.ids, unread: marked.unread))))
        case .ping(let ping):
            actions.append(.send(.pong(Heartbeat(req: ping.req))))
        case .bye(let bye):
            ending(
                Failure(
                    ClientError(.disconnected, "the server is closing (\(bye.reason ?? "bye"))"),
                    retryAfter: bye.retryAfterMs.map { .milliseconds(Int64($0)) }))
        case .error(let error):
            serverError(error, now: now, &actions)
        }
        reschedule(&actions, now: now)
        return actions
    }

    mutating func welcomed(_ welcome: ServerMessage.Welcome, now: Duration, _ actions: inout [Action]) {
        guard case .handshaking(var link) = state else { return }
        rotation.welcomed()
        link.checkAt = link.lastReceived + .milliseconds(welcome.heartbeatMs)
        state = .connected(link, welcome)
        if clientID != welcome.clientID {
            clientID = welcome.clientID
            persist(&actions)
        }
        bucket = TokenBucket(
            rate: Double(welcome.limits.rateOpsPerS) * 0.9, burst: Double(max(1, welcome.limits.rateBurst / 2)))
        for op in restored { detached[op.mut] = op }
        restored = []
        replica?.setUser(welcome.user)
        replica?.clientID = welcome.clientID
        setConnectionState(.connected(endpoint: settings.endpoints[link.endpoint], user: welcome.user), &actions)
        if boardID != nil { subscribe(&actions) }
        for (_, message) in requests.sorted(by: { $0.key.description < $1.key.description }) {
            actions.append(.send(message))
        }
        unsent = pendingOps.filter { $0.ackedSeq == nil }.map(\.mut)
        flushOps(now: now, &actions)
    }

    /// Subscribes to the current board, resuming from the replica's seq when it has one.
    mutating func subscribe(_ actions: inout [Action]) {
        guard let boardID else { return }
        let link: Link
        let welcome: ServerMessage.Welcome
        switch state {
        case .connected(let current, let known), .subscribing(let current, let known, _),
            .live(let current, let known, _):
            (link, welcome) = (current, known)
        default:
            return
        }
        // A new subscription: the old one's presence and fetch end with it.
        state = .subscribing(link, welcome, Subscription())
        let presence: Bool? = settings.announcesPresence ? nil : false
        if let replica, replica.isLoaded, let epoch = replica.epoch {
            actions.append(
                .send(
                    .subscribe(
                        ClientMessage.Subscribe(
                            req: Self.subscribeRequest, board: boardID, since: replica.seq, epoch: epoch,
                            presence: presence))))
        } else {
            actions.append(
                .send(.subscribe(ClientMessage.Subscribe(req: Self.subscribeRequest, board: boardID, presence: presence))))
        }
    }

    mutating func loadSnapshot(_ snapshot: ServerMessage.Snapshot, now: Duration, _ actions: inout [Action]) {
        guard snapshot.board == boardID, let welcome else { return }
        if replica == nil {
            var fresh = Replica(board: snapshot.board, user: welcome.user, shared: settings.sharedBoards)
            fresh.clientID = clientID
            let mine = detached.values.filter { $0.board == snapshot.board }
            fresh.restore(mine)
            for op in mine { detached[op.mut] = nil }
            replica = fresh
        }
        let epochBefore = replica!.epoch
        let done = replica!.load(snapshot.state, seq: snapshot.seq, epoch: snapshot.epoch)
        for op in done { complete(op.mut, .applied(seq: op.ackedSeq ?? snapshot.seq), &actions) }
        if let epochBefore, epochBefore != snapshot.epoch {
            // The store was restored: acks from the old epoch may be void. Send every pending op again (the server
            // answers a mut it applied with its ack, so nothing doubles).
            let waiting = Set(unsent)
            unsent = (unsent + replica!.pending.map(\.mut).filter { !waiting.contains($0) }).sorted()
            flushOps(now: now, &actions)
        }
        updateSubscription {
            if snapshot.req == Self.fetchRequest { $0.fetching = nil }
            $0.loadedSnapshot = true
        }
        persist(&actions)
        publishBoard(.snapshot, .everything, &actions)
    }

    mutating func subscriptionLive(_ subscribed: ServerMessage.Subscribed, _ actions: inout [Action]) {
        guard subscribed.board == boardID, replica != nil,
            case .subscribing(let link, let welcome, var subscription) = state
        else { return }
        replica!.subscribed(epoch: subscribed.epoch)
        subscription.fetching = nil
        state = .live(link, welcome, subscription)
        let seq = replica!.seq
        // A resumed replica at the server's seq must hash the same; one that does not has diverged (a snapshot just
        // loaded is the server's own board: checking it could only loop on a hash bug).
        if !subscription.loadedSnapshot, subscribed.seq == seq, let hash = subscribed.hash,
            let confirmed = replica!.confirmed, confirmed.protocolHash != hash
        {
            resubscribeFresh(&actions)
            return
        }
        if subscribed.seq > seq { requestFetch(seq + 1...subscribed.seq, &actions) }
        if boardWaiters > 0, let board = replica!.view {
            boardWaiters = 0
            actions.append(.resolve(.board(board)))
        }
    }

    mutating func apply(_ delta: ServerMessage.Delta, _ actions: inout [Action]) {
        guard delta.board == boardID, replica != nil else { return }
        let result = replica!.receive(delta)
        // Completions first: a later delta in the same batch may fail to apply, and these ops are done either way.
        for (op, seq) in result.completed { complete(op.mut, .applied(seq: seq), &actions) }
        if result.diverged != nil {
            // The replica no longer matches the server's board: start over from a snapshot.
            resubscribeFresh(&actions)
            return
        }
        if let gap = result.gap { requestFetch(gap, &actions) }
        guard !result.applied.isEmpty else { return }
        let confirmed = replica!.confirmed!
        let user = welcome?.user
        var others = Set<CardID>()
        for applied in result.applied {
            let own = applied.clientID == clientID && applied.actor == user
            if !own, let card = applied.activity.card { others.insert(card) }
            actions.append(
                .emit(.activity(ActivityEvent(activity: applied.activity, op: applied.op, isOwn: own, board: confirmed))))
        }
        if !result.completed.isEmpty { persist(&actions) }
        publishBoard(.deltas, result.changes, changedByOthers: others, &actions)
    }

    mutating func acknowledged(_ ack: ServerMessage.Ack, _ actions: inout [Action]) {
        if let op = detached[ack.mut], op.board == ack.board {
            detached[ack.mut] = nil
            persist(&actions)
            complete(ack.mut, ack.noop ? .noop(seq: ack.seq) : .applied(seq: ack.seq), &actions)
            return
        }
        guard ack.board == boardID, replica != nil else { return }
        let done = replica!.acknowledge(mut: ack.mut, seq: ack.seq, noop: ack.noop, subscribed: isSubscribed)
        persist(&actions)
        if let done {
            complete(done.mut, ack.noop ? .noop(seq: ack.seq) : .applied(seq: ack.seq), &actions)
            publishBoard(.deltas, replica?.changes(removing: done) ?? .everything, &actions)
        }
    }

    mutating func rejected(_ reject: OpRejection, now: Duration, _ actions: inout [Action]) {
        let op: PendingOp?
        if let detachedOp = detached[reject.mut] {
            op = detachedOp
        } else if reject.board == boardID {
            op = replica?.pending.first { $0.mut == reject.mut }
        } else {
            op = nil
        }
        guard let op else { return }
        if reject.code.retryable, case let left = retries[op.mut, default: settings.retryRejected], left > 0 {
            retryLater(op, reject: reject, triesLeft: left - 1, now: now, &actions)
            return
        }
        drop(op)
        retries[op.mut] = nil
        persist(&actions)
        actions.append(.emit(.rejected(RejectedOp(op: op, reject: reject))))
        complete(op.mut, .rejected(reject), &actions)
        publishBoard(.rollback, replica?.changes(removing: op) ?? .everything, &actions)
    }

    /// Sends a retryable-rejected op again later, with a new mutation id, so that it is ordered after what was sent
    /// meanwhile. Its waiters follow it.
    mutating func retryLater(
        _ op: PendingOp, reject: OpRejection, triesLeft: Int, now: Duration, _ actions: inout [Action]
    ) {
        drop(op)
        retries[op.mut] = nil
        let mut = nextMut
        nextMut += 1
        let again = PendingOp(board: op.board, mut: mut, request: op.request)
        if op.board == boardID, replica != nil {
            replica!.enqueue(again, now: replica!.localNow)
        } else {
            detached[mut] = again
        }
        retries[mut] = triesLeft
        resent[op.mut] = mut
        actions.append(.resolve(.opMoved(from: op.mut, to: mut)))
        let generation = persist(&actions)
        if settings.hasJournal { heldForJournal[mut] = generation }
        bucket.drain(now: now.seconds)
        holdUntil = now + .milliseconds(Int64(reject.retryAfterMs ?? 100))
        unsent.append(mut)
        unsent.sort()
        flushOps(now: now, &actions)
    }

    mutating func serverError(_ error: WireError, now: Duration, _ actions: inout [Action]) {
        if error.closesConnection {
            let failure = Failure(
                .server(error), isFatal: ClientError.server(error).isFatal,
                retryAfter: error.retryAfterMs.map { .milliseconds(Int64($0)) })
            if failure.isFatal {
                actions.append(.close)
                stop(.server(error), &actions)
            } else {
                ending(failure)
            }
            return
        }
        if let req = error.req, req == Self.fetchRequest, error.board == nil || error.board == boardID {
            updateSubscription { $0.fetching = nil }
        } else if let req = error.req, req == Self.subscribeRequest, error.board == nil || error.board == boardID {
            // The subscription failed (no such board, or not a member): nobody will get a board.
            if case .subscribing(let link, let welcome, _) = state { state = .connected(link, welcome) }
            let failure = ClientError.server(error)
            if boardWaiters == 0 { subscriptionError = failure }
            boardWaiters = 0
            actions.append(.resolve(.boardFailed(failure)))
        } else if let req = error.req, requests[req] != nil {
            answer(.error(error), &actions)
            return
        } else if let mut = error.mut {
            // The op line did not decode (e.g. unknown_op, a text past the server's string limit): it will never
            // apply. UIs hear of it as of a reject, so the person who made the change is told.
            if let op = pendingOp(mut) {
                drop(op)
                persist(&actions)
                let reject = OpRejection(
                    board: error.board ?? op.board, mut: mut,
                    code: RejectCode(rawValue: error.code.rawValue) ?? .rejected(.invalid), message: error.message)
                actions.append(.emit(.rejected(RejectedOp(op: op, reject: reject))))
                publishBoard(.rollback, replica?.changes(removing: op) ?? .everything, &actions)
            }
            actions.append(.resolve(.opFailed(mut: mut, .server(error))))
            return
        } else if error.code == .resyncRequired, boardID != nil, error.board == boardID {
            resubscribeFresh(&actions)
            return
        } else if error.code == .notFound, error.board == boardID, case .live(let link, let welcome, _) = state {
            state = .connected(link, welcome)
        }
        actions.append(.emit(.serverError(error)))
    }

    /// A gap fetch finished: fetch what is still missing, or start over when the fetch did not move the gap (a
    /// delta this client cannot read would otherwise be fetched for ever).
    mutating func fetched(now: Duration, _ actions: inout [Action]) {
        guard case .live(let link, let welcome, var subscription) = state else { return }
        let asked = subscription.fetching
        subscription.fetching = nil
        state = .live(link, welcome, subscription)
        guard let gap = replica?.gap else { return }
        if let asked, gap.lowerBound <= asked.lowerBound { resubscribeFresh(&actions) } else { requestFetch(gap, &actions) }
    }

    /// Drops the confirmed board and subscribes again without `since` (a snapshot follows). Pending ops move aside
    /// and go back on top of the snapshot.
    mutating func resubscribeFresh(_ actions: inout [Action]) {
        for op in replica?.pending ?? [] { detached[op.mut] = op }
        replica = nil
        subscribe(&actions)
    }

    /// Resolves the request the message answers.
    mutating func answer(_ message: ServerMessage, _ actions: inout [Action]) {
        guard let req = message.req, requests.removeValue(forKey: req) != nil else { return }
        actions.append(.resolve(.answer(req, message)))
    }

    /// Asks for the deltas in `range` again (one fetch at a time, at most `fetch_max`).
    mutating func requestFetch(_ range: ClosedRange<UInt64>, _ actions: inout [Action]) {
        guard let boardID, case .live(let link, let welcome, var subscription) = state, subscription.fetching == nil
        else { return }
        let most = UInt64(max(1, welcome.limits.fetchMax))
        let to = min(range.upperBound, range.lowerBound + most - 1)
        subscription.fetching = range.lowerBound...to
        state = .live(link, welcome, subscription)
        actions.append(
            .send(.fetch(ClientMessage.Fetch(req: Self.fetchRequest, board: boardID, from: range.lowerBound, to: to))))
    }
}
