import BoardCore
import BoardStore
import BoardWire
import NIOCore

extension BoardActor {
    /// How many times in a row a batch may find the board's head moved, catch up and be written again before its
    /// ops are rejected with `storage_busy` (retryable). Each retry follows a commit of another node to this board,
    /// so the board always progresses; the bound only keeps one node from waiting for ever when others win every
    /// race. 256: with two nodes writing one board flat out on a loaded 2-core machine, 32 was lost in a row now
    /// and then (each retry costs a read and a transaction, during which the other node commits again).
    static let headMovedRetriesMax = 256

    /// How many events a catch-up reads per query.
    static let catchUpPage = 1_000

    /// The writer answered the batch in flight. When the shared store says another node moved the board's head
    /// (`StoreError.Code.headMoved`), nothing was written: the board catches up and writes its ops again
    /// (`catchUp`), at most `headMovedRetriesMax` times in a row. Otherwise `settle` acknowledges or rejects the
    /// batch, and an announced head this node has not reached yet is caught up once no batch is in the writer.
    ///
    /// Why a retry loop rather than catching up inside the transaction that found the head moved: the ops must be
    /// applied again by the reducer, in this actor, on the board as of the new head; holding the board's row lock
    /// across that round trip would stall every node writing the board. Each retry is a fresh transaction that
    /// locks the row, checks the head and writes; seqs stay exactly one per committed change, with no gap and no
    /// duplicate, because a batch is written only when it starts right after the stored head.
    ///
    /// An answer to a batch the board settled already (`settleIfPublished`) only lets an announced head be caught up.
    func written(_ result: Result<Void, StoreError>, batch number: UInt64) async {
        if number == batchNumber && committing {
            if case .failure(let error) = result, error.outcomeUnknown {
                await commitOutcomeUnknown(error)
                return
            }
            if case .failure(let error) = result, error.code == .headMoved {
                if headMovedRetries < Self.headMovedRetriesMax {
                    headMovedRetries += 1
                    logger.debug("head moved; catching up", metadata: ["error": "\(error)", "retry": "\(headMovedRetries)"])
                    await catchUp()
                    return
                }
                logger.error("the head moved \(headMovedRetries) times in a row; rejecting the batch with storage_busy")
            }
            headMovedRetries = 0
            settle(result)
        }
        if let wanted = noticedHead, wanted <= committed.seq { noticedHead = nil }
        if noticedHead != nil && !committing { await catchUp() }
    }

    /// An announced head: catches up now when it is beyond `committed` and no batch is in the writer; with a batch
    /// in the writer, once it is answered (`written`), so that a board never reads past its own batch.
    func catchUpIfBehind(_ seq: UInt64?) async {
        guard !isClosed else { return }
        if let seq, seq <= committed.seq { return }  // this node's own commit, or caught up already
        noticedHead = max(noticedHead ?? 0, seq ?? .max)
        guard !committing else { return }
        await catchUp()
    }

    /// Reads what other nodes committed after `committed.seq`, applies it to `committed` and fans it out to this
    /// node's subscribers (`absorb`); then applies this node's own changes that are not durable yet (the batch in
    /// flight, if its commit found the head moved, and everything pending) again on top, in their order, and hands
    /// them to the writer under new seqs. The reducer decides each of them again: an op that is no longer valid (a
    /// WIP limit now reached, a conflict, an undo of a field someone else changed) is rejected with its code and
    /// never acknowledged; one that another node committed already (the client sent it there too) is acknowledged
    /// with the seq it was committed at.
    ///
    /// No hand-over happens while the changes are read (`committing` stays set); ops that arrive meanwhile are
    /// applied to the old `head` and, being pending, applied again here with the rest.
    func catchUp() async {
        let writing = committing
        committing = true
        var events: [StoredEvent] = []
        do {
            while true {
                let from = committed.seq + UInt64(events.count) + 1
                let page = try await store.events(id, from: from, to: UInt64(Int64.max), limit: Self.catchUpPage)
                events += page
                if page.count < Self.catchUpPage { break }
            }
        } catch {
            logger.warning("cannot read the changes of other nodes", metadata: ["error": "\(error)"])
            configuration.metrics.readFailed(error)
            if unresolved {
                if stopping { abandonUnresolved() } else { scheduleResolve() }
                return
            }
            if writing {
                settle(.failure(error))
            } else {
                committing = false
                handOver()
                resumeDrainWaiters()
            }
            return
        }
        if unresolved {
            unresolved = false
            if batchLanded(events) {
                logger.info("the commit whose answer was lost is stored; acknowledging it")
                let ours = inFlight.count
                settle(.success(()))
                events.removeFirst(min(ours, events.count))
                // What was pending meanwhile went to the writer: its outcome catches up with the rest.
                if committing {
                    if !events.isEmpty { noticedHead = .max }
                    return
                }
                committing = true
            } else {
                logger.info("the commit whose answer was lost is not stored; writing its changes again")
            }
        }
        let elsewhere = absorb(events)
        if let wanted = noticedHead, wanted == .max || wanted <= committed.seq { noticedHead = nil }
        let redo = inFlight + pending
        sinceSnapshot -= min(sinceSnapshot, UInt64(inFlight.count))  // `handOver` counts them again
        inFlight = []
        inFlightEnd = nil
        publication.clear()
        pending = []
        head = committed
        for change in redo { reapply(change, committedElsewhere: elsewhere) }
        committing = false
        handOver()
        if pending.isEmpty && !committing { pendingMut = [:] }
        resumeDrainWaiters()
    }

    /// A client's mutation.
    struct Mutation: Hashable {
        var client: ClientKey
        var mut: UInt64
    }

    /// Ops of `submit` waiting for the store about one mutation, and the seq it was committed at meanwhile.
    struct StoreRead {
        var readers = 0
        var committedAt: UInt64?
    }

    /// Applies changes other nodes committed (in seq order, following `committed`) and fans them out to this node's
    /// subscribers: each delta line encoded once (`deltaBytes`) and the same buffer written to every subscriber, as
    /// for local commits. Returns the client mutations among them, with their seqs. A stored change the reducer
    /// refuses stops it there (the log is damaged; logged as an error).
    private func absorb(_ events: [StoredEvent]) -> [Mutation: UInt64] {
        var mutations: [Mutation: UInt64] = [:]
        var shared = ByteBufferAllocator().buffer(capacity: 0)
        var removesMember = false
        for event in events {
            guard event.seq == committed.seq + 1 else {
                logger.error("the events read do not follow seq \(committed.seq) (got \(event.seq)); stopping there")
                break
            }
            let context = ApplyContext(actor: event.actor, role: .owner, now: event.at, seq: event.seq)
            if case .failure(let rejection) = committed.apply(event.op, context: context) {
                logger.error("another node's change at seq \(event.seq) does not replay: \(rejection)")
                break
            }
            let bytes = Self.deltaBytes(event)
            shared.writeBytes(bytes)
            log.append(DeltaLog.Entry(seq: event.seq, line: ByteBuffer(bytes: bytes), activity: event.activity, inverse: event.inverse))
            if let client = event.clientID, let mut = event.mut {
                let key = ClientKey(user: event.actor, client: ClientID(client))
                noteCommitted(key, mut: mut, seq: event.seq)
                mutations[Mutation(client: key, mut: mut)] = event.seq
            }
            if case .removeMember = event.op { removesMember = true }
        }
        guard shared.readableBytes > 0 else { return mutations }
        logger.debug("caught up with other nodes", metadata: ["seq": "\(committed.seq)"])
        configuration.hookSignals.committed(id)
        let removed = removesMember ? endSubscriptionsOfNonMembers() : []
        publication.withFanOut { $0.send(shared) }
        for left in removed {
            presenceLeft(left.id, user: left.user)
        }
        return mutations
    }

    /// Applies one of this node's uncommitted changes again on `head` (after `absorb`), as `submit` would: appended
    /// to `pending` under the next seq, or answered (`reject` with the reducer's code, `ack` with `noop`, or `ack`
    /// with the seq another node committed the same mutation at).
    private func reapply(_ change: Pending, committedElsewhere: [Mutation: UInt64]) {
        let event = change.event
        let answerees = change.answerees
        let key = event.clientID.map { ClientKey(user: event.actor, client: ClientID($0)) }
        if let key, let mut = event.mut, let seq = committedElsewhere[Mutation(client: key, mut: mut)] {
            for session in answerees { session.outbox.send(ByteBuffer(bytes: LineWriter.ackLine(board: id, mut: mut, seq: seq))) }
            return
        }
        let isServer = event.clientID == nil
        guard let role = isServer ? .owner : head.members[event.actor]?.role else {
            if let mut = event.mut {
                for session in answerees { reject(session, mut, .rejected(.notFound), "no board \(id)") }
            }
            return
        }
        let context = ApplyContext(
            actor: event.actor, role: role, now: event.at, seq: head.seq + 1, membersMax: configuration.limits.membersMax)
        let result =
            if let target = change.undoTarget {
                head.applyUndo(of: target.activity, inverse: target.inverse, context: context)
            } else {
                head.apply(event.op, context: context)
            }
        switch result {
        case .failure(let rejection):
            if isServer { serverChange(at: event.seq, became: .lost) }
            configuration.metrics.rejected(.rejected(rejection.code))
            if let mut = event.mut {
                let line = Lines.line(.reject(ServerMessage.Reject(board: id, mut: mut, rejection: rejection)))
                for session in answerees { session.outbox.send(line) }
            }
        case .success(let applied) where applied.isNoop:
            if isServer { serverChange(at: event.seq, became: .noop) }
            if let mut = event.mut {
                let line = ByteBuffer(bytes: LineWriter.ackLine(board: id, mut: mut, seq: head.seq, noop: true))
                for session in answerees { session.outbox.send(line) }
            }
        case .success(let applied):
            if isServer { serverChange(at: event.seq, became: .at(context.seq)) }
            let again = StoredEvent(
                board: id, seq: context.seq, at: event.at, actor: event.actor, clientID: event.clientID, mut: event.mut,
                op: event.op, activity: applied.activity, inverse: applied.inverse, undoOf: event.undoOf)
            var moved = Pending(again, origin: change.origin, undoTarget: change.undoTarget)
            moved.resentBy = change.resentBy
            pending.append(moved)
        }
    }
}
