import BoardCore
import BoardStore
import BoardWire
import NIOCore

extension BoardActor {
    /// What `submit` tells the session.
    enum SubmitOutcome: Sendable, Equatable {
        /// The op was answered (`reject`, or `ack` at once or once durable).
        case answered
        /// The op was answered with `reject` `rate_limited`: the bucket has no token for `retryAfterMs`, and the
        /// client's highest mut applied or pending here is `highestMut` (see `EmptyBuckets`).
        case rateLimited(retryAfterMs: UInt64, highestMut: UInt64)
        /// The board is no longer served here (archived): nothing was answered; look the board up again.
        case closed
        /// The op found the bucket empty after `rate_close_ms` of continuous rate limiting: nothing was answered;
        /// the session must close the connection with `too_many_errors` (Protocol.md, "Rate limit").
        case closeForRate
    }

    /// Applies one op from a session, exactly once per (user, client id, mut). Replies go to the session's outbox:
    /// `reject` at once, `ack` with `noop` at once, otherwise `ack` and the delta once the change is durable.
    ///
    /// Every check of the op path happens here, in the board's isolation, with no other actor on the way: membership
    /// (of the durable board: access is never granted on a change that is not stored yet), the user's token bucket
    /// on this board and the session's run of rate limiting, exactly-once, then the reducer. The token is taken
    /// first, before anything is read; its verdict is applied only after the exactly-once checks, so a resend of an
    /// applied op is answered with its original ack even when the user is over the rate, and a client that re-sends
    /// a rate-limited op under a new mut never doubles it.
    @discardableResult
    func submit(_ request: OpRequest, mut: UInt64, from session: SessionRef) async -> SubmitOutcome {
        guard !isClosed else { return .closed }
        settleIfPublished()
        guard !runEnded else {
            reject(session, mut, .storageBusy, "the server is shutting down; nothing was applied", retryAfterMs: 1_000)
            return .answered
        }
        guard committed.members[session.user] != nil, let member = head.members[session.user] else {
            // Not a member (or removed since): the same answer as for a missing board.
            reject(session, mut, .rejected(.notFound), "no board \(id)")
            return .answered
        }
        let nowMs = clock.monotonicMs()
        let limits = configuration.limits
        var bucket = rateBuckets[session.user] ?? TokenBucket(rate: limits.rateOpsPerS, burst: limits.rateBurst, nowMs: nowMs)
        let rateLimited = bucket.take(nowMs: nowMs)
        rateBuckets[session.user] = bucket
        let key = ClientKey(user: session.user, client: session.clientID)
        if attachToPending(key, mut: mut, session) { return .answered }
        if unresolved {
            reject(session, mut, .storageBusy, Self.unresolvedMessage)
            return .answered
        }
        // From the first `await` on, another copy of this mutation may be applied, or even committed, before this
        // one resumes: `storeReads` notes such a commit, and `answeredMeanwhile` checks before anything is decided.
        let mutation = Mutation(client: key, mut: mut)
        var reading = false
        defer { if reading { stopReading(mutation) } }
        if lastMut[key] == nil {
            startReading(mutation, &reading)
            do {
                if let stored = try await store.lastMutation(
                    user: session.user, clientID: session.clientID.rawValue, board: id)
                {
                    lastMut[key] = max(lastMut[key] ?? 0, stored)
                }
            } catch {
                configuration.metrics.readFailed(error)
                reject(session, mut, .storageBusy, "the store could not be read: \(error)")
                return .answered
            }
        }
        if let last = lastMut[key], mut <= last {
            startReading(mutation, &reading)
            guard await isUnapplied(session, mut: mut) else { return .answered }
        }
        // Never applied anywhere as far as the store said: evaluated now like any op, unless the same mutation got
        // here meanwhile (before the rate verdict: a `rate_limited` reject means the op was not applied).
        if reading, answeredMeanwhile(mutation, session) { return .answered }
        if let wait = rateLimited {
            var run = rateRuns[session.id] ?? RateLimitRun(closeAfterMs: Int64(limits.rateCloseMs))
            let closes = run.limited(nowMs: nowMs)
            rateRuns[session.id] = run
            if closes { return .closeForRate }
            reject(
                session, mut, .rateLimited, "over \(limits.rateOpsPerS) ops/s; retry in \(wait) ms", retryAfterMs: wait)
            return .rateLimited(retryAfterMs: wait, highestMut: max(lastMut[key] ?? 0, pendingMut[key] ?? 0))
        }
        var resolved: (op: Op, undoOf: UInt64?)
        var target: (activity: Activity, inverse: Op?)?
        switch request {
        case .op(let op):
            resolved = (op, nil)
        case .invalid(let kind, let problem, _):
            // It decoded (known kind, right JSON types) but a value is out of range: the reducer's verdict.
            reject(session, mut, .rejected(.invalid), "\(kind): \(problem)")
            return .answered
        case .undo(let seq):
            startReading(mutation, &reading)
            guard let found = await undoTarget(seq) else {
                reject(session, mut, .rejected(.notFound), "no change \(seq) on board \(id)")
                return .answered
            }
            target = found
            resolved = (found.inverse ?? .chat(text: ""), seq)
        }
        // Awaits above may have let other ops in, or a commit's answer be lost meanwhile: both are checked now.
        if reading, answeredMeanwhile(mutation, session) { return .answered }
        if unresolved {
            reject(session, mut, .storageBusy, Self.unresolvedMessage)
            return .answered
        }
        let context = ApplyContext(
            actor: session.user, role: member.role, now: clock.now(), seq: head.seq + 1,
            membersMax: configuration.limits.membersMax)
        let result: Result<(activity: Activity, inverse: Op?, isNoop: Bool), Rejection>
        if let target {
            result = head.applyUndo(of: target.activity, inverse: target.inverse, context: context)
        } else {
            result = head.apply(resolved.op, context: context)
        }
        switch result {
        case .failure(let rejection):
            configuration.metrics.rejected(.rejected(rejection.code))
            session.outbox.send(Lines.line(.reject(ServerMessage.Reject(board: id, mut: mut, rejection: rejection))))
        case .success(let change) where change.isNoop:
            session.outbox.send(ByteBuffer(bytes: LineWriter.ackLine(board: id, mut: mut, seq: head.seq, noop: true)))
        case .success(let change):
            let event = StoredEvent(
                board: id, seq: context.seq, at: context.now, actor: session.user,
                clientID: session.clientID.rawValue, mut: mut, op: resolved.op, activity: change.activity,
                inverse: change.inverse, undoOf: resolved.undoOf)
            pending.append(Pending(event, origin: session, undoTarget: target))
            pendingMut[key] = max(pendingMut[key] ?? 0, mut)
            handOver()
        }
        return .answered
    }

    /// A session ended: forget its run of rate limiting and end its subscription, if any.
    func sessionEnded(_ session: SessionID) {
        rateRuns[session] = nil
        rateRuns.releaseSparseCapacity()
        unsubscribe(session)
    }

    /// Applies an op on behalf of the server itself (the admin queue): no client, no ack.
    func applyAsServer(_ op: Op) -> Rejection? {
        let context = ApplyContext(
            actor: "corkd", role: .owner, now: clock.now(), seq: head.seq + 1, membersMax: configuration.limits.membersMax)
        switch head.apply(op, context: context) {
        case .failure(let rejection):
            return rejection
        case .success(let change) where change.isNoop:
            return nil
        case .success(let change):
            let event = StoredEvent(
                board: id, seq: context.seq, at: context.now, actor: "corkd", clientID: nil, mut: nil, op: op,
                activity: change.activity, inverse: change.inverse, undoOf: nil)
            pending.append(Pending(event, origin: nil))
            handOver()
            return nil
        }
    }

    /// `submit` is about to wait for the store on `mutation` (once per op).
    private func startReading(_ mutation: Mutation, _ reading: inout Bool) {
        guard !reading else { return }
        reading = true
        storeReads[mutation, default: StoreRead()].readers += 1
    }

    private func stopReading(_ mutation: Mutation) {
        guard var read = storeReads[mutation] else { return }
        read.readers -= 1
        storeReads[mutation] = read.readers > 0 ? read : nil
    }

    /// A committed client mutation: the client's highest mark, and the answer of any op reading the store about it.
    func noteCommitted(_ key: ClientKey, mut: UInt64, seq: UInt64) {
        lastMut[key] = max(lastMut[key] ?? 0, mut)
        if !storeReads.isEmpty { storeReads[Mutation(client: key, mut: mut)]?.committedAt = seq }
    }

    /// After `submit` waited for the store: true when the same mutation was committed meanwhile (answered with its
    /// ack) or is waiting for the store now (answered when it commits).
    private func answeredMeanwhile(_ mutation: Mutation, _ session: SessionRef) -> Bool {
        if let seq = storeReads[mutation]?.committedAt {
            session.outbox.send(ByteBuffer(bytes: LineWriter.ackLine(board: id, mut: mutation.mut, seq: seq)))
            return true
        }
        return attachToPending(mutation.client, mut: mutation.mut, session)
    }

    /// A resend of a change still waiting for the store is acknowledged when it commits: true when `mut` was found
    /// there. Only a mut at or below the client's highest pending one can be such a resend, so the common case scans
    /// nothing.
    private func attachToPending(_ key: ClientKey, mut: UInt64, _ session: SessionRef) -> Bool {
        guard let highest = pendingMut[key], mut <= highest else { return false }
        let matches: (Pending) -> Bool = {
            $0.event.clientID == session.clientID.rawValue && $0.event.actor == session.user && $0.event.mut == mut
        }
        if let i = inFlight.firstIndex(where: matches) {
            switch publication.attach(seq: inFlight[i].event.seq, session) {
            case .published(let seq):
                // Durable and answered already: the resend gets the original ack now.
                session.outbox.send(ByteBuffer(bytes: LineWriter.ackLine(board: id, mut: mut, seq: seq)))
            case .attached, .absent:
                inFlight[i].resentBy.append(session)
            }
            return true
        }
        if let i = pending.firstIndex(where: matches) {
            pending[i].resentBy.append(session)
            return true
        }
        return false
    }

    /// For a mut at or below the client's highest one applied on this board: answers it and returns false when it
    /// was applied (its original ack, never a second apply; `stale_mut` when it was applied on another board), and
    /// returns true when it was never applied anywhere, so it must be evaluated now (Protocol.md, "op").
    ///
    /// Acks are kept as long as the board: the store never deletes committed changes, so an applied mut always finds
    /// its event, however late the resend. `stale_mut` therefore always means the op was applied, elsewhere.
    private func isUnapplied(_ session: SessionRef, mut: UInt64) async -> Bool {
        do {
            guard let event = try await store.committed(user: session.user, clientID: session.clientID.rawValue, mut: mut)
            else { return true }
            if event.board == id {
                session.outbox.send(ByteBuffer(bytes: LineWriter.ackLine(board: id, mut: mut, seq: event.seq)))
            } else {
                reject(
                    session, mut, .staleMut,
                    "mutation \(mut) of this client was applied on board \(event.board); mutation ids are per client, "
                        + "across boards")
            }
        } catch {
            configuration.metrics.readFailed(error)
            reject(session, mut, .storageBusy, "the store could not be read: \(error)")
        }
        return false
    }

    /// Rejects `mut` as `stale_mut`, naming the board it was applied on (read from the store; "another board" when
    /// the store cannot say).
    func rejectReused(_ session: SessionRef, mut: UInt64) async {
        let board = try? await store.committed(user: session.user, clientID: session.clientID.rawValue, mut: mut)?.board
        reject(
            session, mut, .staleMut,
            "mutation \(mut) of this client was applied on \(board.map { "board \($0)" } ?? "another board"); mutation ids "
                + "are per client, across boards")
    }

    /// The activity and inverse of an earlier change, from the recent log or the store.
    private func undoTarget(_ seq: UInt64) async -> (activity: Activity, inverse: Op?)? {
        guard seq >= 1, seq <= committed.seq else { return nil }
        if let entry = log.entry(seq) { return (entry.activity, entry.inverse) }
        guard let event = try? await store.events(id, from: seq, to: seq, limit: 1).first else { return nil }
        return (event.activity, event.inverse)
    }

    func reject(_ session: SessionRef, _ mut: UInt64, _ code: RejectCode, _ message: String, retryAfterMs: UInt64? = nil) {
        configuration.metrics.rejected(code)
        session.outbox.send(
            ByteBuffer(bytes: LineWriter.rejectLine(board: id, mut: mut, code: code, message: message, retryAfterMs: retryAfterMs)))
    }

    /// Hands everything pending to the store's writer, unless a batch of this board is in it already (then this
    /// runs again when that one is answered). The writer's answer comes back through `outcomes` to `settle`.
    func handOver() {
        guard !committing, !pending.isEmpty else { return }
        committing = true
        inFlight = pending
        pending = []
        sinceSnapshot += UInt64(inFlight.count)
        let snapshot = sinceSnapshot >= configuration.snapshotInterval
        inFlightEnd = (head, snapshot)
        inFlightStarted = ContinuousClock.now
        batchNumber += 1
        let number = batchNumber
        // The writer publishes the batch itself once it is durable, unless it ends a membership (`settle` ends those
        // subscriptions first).
        publication.begin(
            inFlight.map(\.entry),
            publishable: !inFlight.contains(where: \.removesMember))
        let (outcomes, publication) = (self.outcomes, self.publication)
        store.submit(encoded: inFlight.map(\.change), snapshots: snapshot ? [head] : []) { result in
            if case .success = result { publication.publish() }
            outcomes.yield(.written(result, batch: number))
        }
    }

    /// Settles the batch in flight now if the writer has published it (it is durable and its subscribers have it),
    /// without waiting for the writer's answer to reach `run()`: whoever heard of the batch from the writer (an
    /// `ack`, a `delta`) and asks the board next — to undo it, to fetch it, to resume after it, to subscribe as the
    /// member it added — finds it in `committed`. The answer, when it comes, is then for a settled batch and ignored.
    func settleIfPublished() {
        guard committing, !unresolved, publication.isPublished else { return }
        headMovedRetries = 0
        settle(.success(()))
    }

    /// The writer answered the batch in flight: once durable, takes it into `committed`, the log and the exactly-once
    /// marks, acknowledges and fans it out unless the writer has done so already (`publication`), and hands over what
    /// was applied meanwhile; on failure rolls `head` back and rejects the batch and everything applied on top of it.
    func settle(_ result: Result<Void, StoreError>) {
        guard committing, let ending = inFlightEnd else { return }
        let (end, snapshot) = (ending.board, ending.snapshot)
        let started = inFlightStarted ?? ContinuousClock.now
        let batch = inFlight
        let published = publication.finish()
        committing = false
        inFlight = []
        inFlightEnd = nil
        defer {
            if pending.isEmpty && !committing { pendingMut = [:] }
            resumeDrainWaiters()
        }
        if case .failure(let error) = result {
            configuration.metrics.commitFailed()
            // Nothing of the batch is durable, and whatever was applied on top of it since is void too.
            let dropped = batch + pending
            pending = []
            head = committed
            sinceSnapshot -= UInt64(batch.count)
            let code: RejectCode =
                switch error.code {
                case .full: .storageFull
                case .busy, .headMoved: .storageBusy
                default: .internal
                }
            logger.error("commit failed; \(dropped.count) op(s) rejected", metadata: ["error": "\(error)"])
            let reused = error.duplicateMutation
            for change in dropped {
                guard let mut = change.event.mut else { continue }
                if let reused, reused.mut == mut, reused.clientID == change.event.clientID,
                    reused.actor == change.event.actor.rawValue
                {
                    // The client used a mut it had used on another board: its fault, not to be retried
                    // (Protocol.md, "Exactly once"); the others of the batch are `internal` and may be sent again.
                    for session in change.answerees { Task { await self.rejectReused(session, mut: mut) } }
                    continue
                }
                let why = reused == nil ? error.message : "another change of the same commit reused a mutation id"
                for session in change.answerees {
                    reject(session, mut, code, "the change was not stored (\(why)); nothing was applied")
                }
            }
            return
        }
        configuration.metrics.committed(batch.count, in: ContinuousClock.now - started)
        if snapshot { sinceSnapshot = 0 }
        committed = end
        for change in batch {
            let event = change.event
            // The log keeps its own copy: a slice of a shared buffer would keep the whole batch alive with the delta.
            log.append(
                DeltaLog.Entry(
                    seq: event.seq, line: ByteBuffer(bytes: change.line), activity: event.activity, inverse: event.inverse))
            if let client = event.clientID, let mut = event.mut {
                noteCommitted(ClientKey(user: event.actor, client: ClientID(client)), mut: mut, seq: event.seq)
            }
        }
        // The webhook deliverer reads the batch from the store on its own tasks; this only drops it a note.
        if !batch.isEmpty { configuration.hookSignals.committed(id) }
        if let first = batch.first?.event.seq {
            logger.debug(
                "committed",
                metadata: [
                    "seq": "\(first)...\(end.seq)", "batch": "\(batch.count)", "snapshot": "\(snapshot)",
                    "published": "\(published)",
                ])
        }
        if published {
            // Its acks and deltas went out from the writer: what was applied meanwhile goes to the writer now.
            handOver()
            return
        }
        // The board sends this batch itself (it ends a membership, or its answer came another way), before it hands
        // over the next one, which the writer may publish. A member removed by this batch stops receiving the board
        // now: none of the batch's deltas reach them.
        let removed = batch.contains(where: \.removesMember) ? endSubscriptionsOfNonMembers() : []
        publication.deliver(batch.map(\.entry))
        handOver()
        for left in removed {
            presenceLeft(left.id, user: left.user)
        }
    }

    /// Ends the subscription of every session whose user is no longer a member of `committed`: each gets `error`
    /// `not_found` for the board (Protocol.md, "Security"). Returns those that were present, for `presence.left`.
    func endSubscriptionsOfNonMembers() -> [SessionRef] {
        var present: [SessionRef] = []
        for (session, ref) in subscribers where committed.members[ref.user] == nil {
            subscribers[session] = nil
            publication.withFanOut { $0.remove(session) }
            presenceUpdated[session] = nil
            if presence.removeValue(forKey: session) != nil { present.append(ref) }
            ref.outbox.send(Lines.error(WireError(.notFound, "you are no longer a member of board \(id)", board: id)))
        }
        return present
    }
}
