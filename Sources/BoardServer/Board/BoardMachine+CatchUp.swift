import BoardCore
import BoardStore
import BoardWire
import NIOCore

/// Catching up with other nodes (PostgreSQL): their commits are read by seq, applied to `committed` and fanned out;
/// this node's changes that are not durable yet are then applied again on top, in their order, and written under new
/// seqs. Seqs stay exactly one per committed change, with no gap and no duplicate, because a batch is written only
/// when it starts right after the stored head (the store refuses it with `headMoved` otherwise).
///
/// Why a retry loop rather than catching up inside the transaction that found the head moved: the ops must be
/// applied again by the reducer, on the board as of the new head; holding the board's row lock across that round
/// trip would stall every node writing the board.
extension BoardMachine {
    /// The shared store announced the board's head at `seq` (nil: announcements may have been lost, check). Beyond
    /// `committed`, the missing changes are read now, or once the batch in the writer is answered (a board never
    /// reads past its own batch).
    mutating func noticed(head seq: UInt64?) -> [Action] {
        guard !isFinished else { return take() }
        if let seq, seq <= committed.seq { return take() }  // this node's own commit, or caught up already
        noticedHead = max(noticedHead ?? 0, seq ?? .max)
        if case .idle = writer { startCatchUp(redo: nil) }
        return take()
    }

    /// The `delta` line of a stored change (another node's, or one read back for the log), encoded once: the log
    /// keeps it and subscribers get the same bytes.
    static func deltaLine(_ event: StoredEvent) -> ByteBuffer {
        ByteBuffer(
            bytes: LineWriter.deltaLine(
                board: event.board, seq: event.seq, at: event.at, actor: event.actor,
                clientID: event.clientID.map { ClientID($0) }, mut: event.mut, op: event.op, activity: event.activity))
    }

    mutating func startCatchUp(redo: Batch?) {
        writer = .catchingUp(redo: redo)
        emit(.readChanges(from: committed.seq + 1))
    }

    /// The read asked for by ``Action/readChanges(from:)`` came back.
    mutating func caughtUp(_ result: Result<[StoredEvent], StoreError>) -> [Action] {
        switch (writer, result) {
        case (.unresolved(let batch, reading: true), .failure(let error)):
            emit(.log(.readFailed("\(error)")))
            if case .stopping = state {
                abandon(batch)
            } else {
                writer = .unresolved(batch, reading: false)
                emit(.retryResolve(afterMs: Self.resolveRetryMs))
            }
        case (.unresolved(let batch, reading: true), .success(var events)):
            if landed(batch, events) {
                emit(.log(.landed))
                settle(batch, .success(()), published: false)
                events.removeFirst(min(batch.changes.count, events.count))
                if case .writing = writer {
                    // What was pending went to the writer: its answer catches up with the rest.
                    if !events.isEmpty { noticedHead = .max }
                } else {
                    absorbAndRedo(events, redo: nil)
                }
            } else {
                emit(.log(.notLanded))
                absorbAndRedo(events, redo: batch)
            }
        case (.catchingUp(let redo), .failure(let error)):
            emit(.log(.readFailed("\(error)")))
            if let redo {
                settle(redo, .failure(error), published: false)
            } else {
                writer = .idle
                handOver()
                // Nothing of this node's waits on the read, so nothing would start it again before the next change
                // anywhere: a quiet board would stay behind. It is read again after the retry delay.
                if case .serving(.idle) = state, noticedHead != nil { emit(.retryResolve(afterMs: Self.resolveRetryMs)) }
            }
        case (.catchingUp(let redo), .success(let events)):
            absorbAndRedo(events, redo: redo)
        default:
            break
        }
        endIfStopped()
        return take()
    }

    /// The database connection was lost while `batch` was committed: its ops are neither acknowledged nor rejected
    /// yet (a `reject` says nothing was applied, and a client re-sends a rejected op under a new mut, which would
    /// apply it twice). What was applied on top of it was never handed over: it is rejected now (`storage_busy`,
    /// retryable), and so is every new op until a read of the store after `committed.seq` says whether the batch
    /// landed: then it is acknowledged and fanned out as if its commit had answered; if not, it is applied again on
    /// the stored head and written, as after a moved head.
    mutating func outcomeUnknown(_ batch: Batch, _ error: StoreError) {
        emit(.commitFailed(error, rejected: pending.count))
        emit(.log(.outcomeUnknown))
        head = batch.end
        let dropped = pending
        pending = []
        for change in dropped {
            if change.event.clientID == nil { serverChange(at: change.event.seq, became: .lost) }
            guard let mut = change.event.mut else { continue }
            for session in change.answerees { reject(session, mut, .storageBusy, Self.unresolvedMessage) }
        }
        writer = .unresolved(batch, reading: true)
        emit(.readChanges(from: committed.seq + 1))
    }

    /// The retry timer fired: read the store again, for an unresolved commit or for a catch-up whose read failed.
    mutating func resolve() -> [Action] {
        if case .serving(.idle) = state, noticedHead != nil {
            startCatchUp(redo: nil)
            return take()
        }
        guard case .unresolved(let batch, reading: false) = writer else { return take() }
        writer = .unresolved(batch, reading: true)
        emit(.readChanges(from: committed.seq + 1))
        return take()
    }

    /// Stopping while the database still does not answer: the unresolved batch is left unanswered, never rejected
    /// (its clients send its ops again, with their muts, to a node that can reach the database: exactly-once finds
    /// each stored or applies it), and the board stops.
    private mutating func abandon(_ batch: Batch) {
        emit(.log(.abandoned(ops: batch.changes.count)))
        for change in batch.changes + pending where change.event.clientID == nil {
            serverChange(at: change.event.seq, became: .lost)
        }
        sinceSnapshot -= min(sinceSnapshot, UInt64(batch.changes.count))
        writer = .idle
        pending = []
        head = committed
        takeBack(batch.answers)
        releaseHeld()
    }

    /// Whether the events read after `committed.seq` start with `batch` (then its commit landed: a transaction is
    /// all or nothing, and its first seq follows `committed`). A client's change is known by its (user, client id,
    /// mut), which is stored once; a server change by its actor, time and op.
    func landed(_ batch: Batch, _ events: [StoredEvent]) -> Bool {
        guard let ours = batch.changes.first?.event, let stored = events.first, stored.seq == ours.seq else {
            return false
        }
        if ours.clientID != nil {
            return stored.actor == ours.actor && stored.clientID == ours.clientID && stored.mut == ours.mut
        }
        return stored.clientID == nil && stored.actor == ours.actor && stored.at == ours.at && stored.op == ours.op
    }

    /// Applies `events` to `committed` and fans them out, then applies `redo` and everything pending again on top
    /// (the reducer decides each again: one no longer valid is rejected with its code; one another node committed
    /// already, because the client sent it there too, is acknowledged with that seq) and hands them over.
    private mutating func absorbAndRedo(_ events: [StoredEvent], redo: Batch?) {
        let elsewhere = absorb(events)
        if let wanted = noticedHead, wanted == .max || wanted <= committed.seq { noticedHead = nil }
        sinceSnapshot -= min(sinceSnapshot, UInt64(redo?.changes.count ?? 0))
        if let redo { takeBack(redo.answers) }
        applyAgain((redo?.changes ?? []) + pending, committedElsewhere: elsewhere)
    }

    /// Applies `changes` (this node's, none of them durable: a batch the store did not take and what was pending
    /// after it) again on `committed`, in order, and hands over what still applies.
    mutating func applyAgain(_ changes: [Pending], committedElsewhere: [Mutation: UInt64]) {
        pending = []
        head = committed
        writer = .idle
        for change in changes { reapply(change, committedElsewhere: committedElsewhere) }
        handOver()
        releaseHeld()
    }

    /// Applies changes other nodes committed (in seq order, following `committed`) and fans them out: each delta
    /// encoded once and the same buffer written to every subscriber, as for local commits. Returns the client
    /// mutations among them, with their seqs. A stored change the reducer refuses stops it there (logged).
    private mutating func absorb(_ events: [StoredEvent]) -> [Mutation: UInt64] {
        var mutations: [Mutation: UInt64] = [:]
        var shared = ByteBufferAllocator().buffer(capacity: 0)
        let members = Set(committed.members.keys)
        var count = 0
        for event in events {
            guard event.seq == committed.seq + 1 else {
                emit(.log(.eventsOutOfOrder(after: committed.seq, got: event.seq)))
                break
            }
            let context = ApplyContext(actor: event.actor, role: .owner, now: event.at, seq: event.seq)
            if case .failure(let rejection) = committed.apply(event.op, context: context) {
                emit(.log(.doesNotReplay(seq: event.seq, rejection)))
                break
            }
            count += 1
            var line = Self.deltaLine(event)
            log.append(DeltaLog.Entry(seq: event.seq, line: line, activity: event.activity, inverse: event.inverse))
            shared.writeBuffer(&line)
            if let client = event.clientID, let mut = event.mut {
                let key = ClientKey(user: event.actor, client: ClientID(client))
                noteCommitted(key, mut: mut, seq: event.seq)
                mutations[Mutation(client: key, mut: mut)] = event.seq
            }
        }
        guard count > 0 else { return mutations }
        let left = members.subtracting(committed.members.keys)
        emit(.fanOut(shared, removing: left))
        emit(.committed(batch: nil, count: count, seq: committed.seq, left: left))
        return mutations
    }

    /// Applies one of this node's uncommitted changes again on `head` (after `absorb`): appended to `pending` under
    /// the next seq, or answered (`reject` with the reducer's code, `ack` with `noop`, or `ack` with the seq another
    /// node committed the same mutation at).
    private mutating func reapply(_ change: Pending, committedElsewhere: [Mutation: UInt64]) {
        let event = change.event
        let answerees = change.answerees
        let key = event.clientID.map { ClientKey(user: event.actor, client: ClientID($0)) }
        if let key, let mut = event.mut, let seq = committedElsewhere[Mutation(client: key, mut: mut)] {
            for session in answerees { ack(session, mut: mut, seq: seq) }
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
            actor: event.actor, role: role, now: event.at, seq: head.seq + 1, membersMax: limits.membersMax)
        let result =
            if let target = change.undoTarget {
                head.applyUndo(of: target.activity, inverse: target.inverse, context: context)
            } else {
                head.apply(event.op, context: context)
            }
        switch result {
        case .failure(let rejection):
            if isServer { serverChange(at: event.seq, became: .lost) }
            if let key, let mut = event.mut {
                let line = Lines.line(.reject(ServerMessage.Reject(board: id, mut: mut, rejection: rejection)))
                for session in answerees {
                    answerInOrder(line, key: key, mut: mut, to: session, rejected: .rejected(rejection.code))
                }
            }
        case .success(let applied) where applied.isNoop:
            if isServer { serverChange(at: event.seq, became: .noop) }
            if let key, let mut = event.mut {
                let ack = ByteBuffer(bytes: LineWriter.ackLine(board: id, mut: mut, seq: head.seq, noop: true))
                for session in answerees { answerInOrder(ack, key: key, mut: mut, to: session, rejected: nil) }
            }
        case .success(let applied):
            if isServer { serverChange(at: event.seq, became: .at(context.seq)) }
            let again = StoredEvent(
                board: id, seq: context.seq, at: event.at, actor: event.actor, clientID: event.clientID, mut: event.mut,
                op: event.op, activity: applied.activity, inverse: applied.inverse, undoOf: event.undoOf)
            var moved = Pending(again, origin: change.origin, undoTarget: change.undoTarget)
            moved.resentBy = change.resentBy
            pending.append(moved)
            if let key, let mut = event.mut { pendingMut[key] = max(pendingMut[key] ?? 0, mut) }
        }
    }

    // MARK: - Server changes

    /// Where the server's own change first given `first` stands: durable, still pending, or lost (its batch failed
    /// to commit and `head` rolled back past it, or another change now holds the seq).
    mutating func adminChange(at first: UInt64) -> AdminChange {
        var seq = first
        switch serverChanges[first] {
        case .lost?:
            serverChanges[first] = nil
            return .lost
        case .noop?:
            serverChanges[first] = nil
            return .durable
        case .at(let now)?:
            seq = now
            if committed.seq >= now { serverChanges[first] = nil }
        case nil:
            break
        }
        if committed.seq >= seq {
            if let entry = log.entry(seq), entry.activity.actor != "corkd" { return .lost }
            return .durable
        }
        return head.seq >= seq ? .pending : .lost
    }

    enum AdminChange {
        case durable, pending, lost
    }

    /// What a catch-up did to a server change (see `serverChanges`).
    enum ServerChangeFate: Equatable {
        /// Applied again at this seq.
        case at(UInt64)
        /// Applied again, and it changed nothing any more (another node made the same change): done.
        case noop
        /// Refused when applied again.
        case lost
    }

    /// Records what a catch-up did to the server change that was at `old`, under the seq it was first given.
    mutating func serverChange(at old: UInt64, became fate: ServerChangeFate) {
        let first = serverChanges.first(where: { $0.value == .at(old) })?.key ?? old
        serverChanges[first] = fate
    }
}
