import BoardCore
import BoardStore
import BoardWire
import NIOCore

/// Commits: handing the pending changes to the store's writer, settling its answer, and keeping a client's answers in
/// the order of its ops.
extension BoardMachine {
    /// Hands everything pending to the writer, unless a batch of this board is there already (then this runs again
    /// when it is answered).
    mutating func handOver() {
        guard case .idle = writer, !pending.isEmpty, !isFinished else { return }
        let changes = pending
        pending = []
        sinceSnapshot += UInt64(changes.count)
        let snapshot = sinceSnapshot >= snapshotInterval
        batchNumber += 1
        let removing =
            changes.contains(where: \.removesMember)
            ? Set(committed.members.keys).subtracting(head.members.keys) : []
        var batch = Batch(number: batchNumber, changes: changes, end: head, snapshot: snapshot, removing: removing)
        // Every held answer waits for changes of this batch now (the writer was idle): each goes right after the
        // last one its client sent before it.
        var still: [HeldAnswer] = []
        for answer in held {
            let earlier = changes.lastIndex {
                $0.event.clientID == answer.key.client.rawValue && $0.event.actor == answer.key.user
                    && ($0.event.mut ?? .max) < answer.mut
            }
            if let earlier { batch.answers.append((earlier, answer)) } else { still.append(answer) }
        }
        held = still
        writer = .writing(batch)
        emit(
            .commit(
                Commit(
                    number: batch.number, changes: changes.map(\.change), snapshot: snapshot ? head : nil,
                    publication: batch.publication)))
    }

    /// The writer answered batch `number`. A moved head (another node committed first) is caught up and the batch
    /// written again, at most ``headMovedRetriesMax`` times in a row; a lost connection leaves the outcome to a read
    /// of the store (`unresolved`); otherwise the batch is settled. An answer to a batch settled already
    /// (``published(_:)``) only lets an announced head be caught up.
    mutating func written(_ result: Result<Void, StoreError>, batch number: UInt64) -> [Action] {
        if case .writing(let batch) = writer, batch.number == number {
            switch result {
            case .failure(let error) where error.outcomeUnknown:
                outcomeUnknown(batch, error)
                return take()
            case .failure(let error) where error.code == .headMoved && headMovedRetries < Self.headMovedRetriesMax:
                headMovedRetries += 1
                emit(.log(.headMoved(retry: headMovedRetries)))
                startCatchUp(redo: batch)
                return take()
            case .failure(let error) where error.duplicateMutation != nil:
                headMovedRetries = 0
                if let reused = error.duplicateMutation { dropReused(batch, reused) }
            case .failure(let error) where error.code == .headMoved:
                emit(.log(.headMovedTooOften(headMovedRetries)))
                headMovedRetries = 0
                settle(batch, .failure(error), published: false)
            case .failure(let error):
                headMovedRetries = 0
                settle(batch, .failure(error), published: false)
            case .success:
                headMovedRetries = 0
                settle(batch, .success(()), published: true)
            }
        }
        if let wanted = noticedHead, wanted <= committed.seq { noticedHead = nil }
        if noticedHead != nil, case .idle = writer, !isFinished { startCatchUp(redo: nil) }
        endIfStopped()
        return take()
    }

    /// The writer published batch `number` (it is durable and its subscribers have it) before its answer reached
    /// the machine: settled now, so whoever heard of it from the writer and asks the board next finds it.
    mutating func published(_ number: UInt64) -> [Action] {
        guard case .writing(let batch) = writer, batch.number == number else { return take() }
        headMovedRetries = 0
        settle(batch, .success(()), published: true)
        return take()
    }

    /// Takes a durable batch into `committed`, the log and the marks, answers its resends (and, when the writer did
    /// not publish it, sends it), and hands over what was applied meanwhile; a failed one rolls `head` back and
    /// rejects it and everything applied on top of it.
    mutating func settle(_ batch: Batch, _ result: Result<Void, StoreError>, published: Bool) {
        writer = .idle
        defer {
            if pending.isEmpty, case .idle = writer { pendingMut = [:] }
        }
        if case .failure(let error) = result {
            let dropped = batch.changes + pending
            pending = []
            head = committed
            sinceSnapshot -= min(sinceSnapshot, UInt64(batch.changes.count))
            emit(.commitFailed(error, rejected: dropped.count))
            reject(dropped, error)
            takeBack(batch.answers)
            releaseHeld()
            return
        }
        if batch.snapshot { sinceSnapshot = 0 }
        committed = batch.end
        for change in batch.changes {
            let event = change.event
            log.append(DeltaLog.Entry(seq: event.seq, line: change.line, activity: event.activity, inverse: event.inverse))
            if let client = event.clientID, let mut = event.mut {
                noteCommitted(ClientKey(user: event.actor, client: ClientID(client)), mut: mut, seq: event.seq)
                let ack = ByteBuffer(bytes: LineWriter.ackLine(board: id, mut: mut, seq: event.seq))
                for session in change.resentBy { emit(.send(ack, to: session, rejected: nil)) }
            }
        }
        if !published { emit(.deliver(batch.publication)) }
        emit(.committed(batch: batch.number, count: batch.changes.count, seq: committed.seq, left: batch.removing))
        releaseHeld()
        handOver()
    }

    /// Whether `key` has a change below `mut` that is not answered yet (pending, or in the writer).
    func hasEarlier(_ key: ClientKey, below mut: UInt64) -> Bool {
        guard pendingMut[key] != nil else { return false }
        let earlier: (Pending) -> Bool = {
            $0.event.clientID == key.client.rawValue && $0.event.actor == key.user && ($0.event.mut ?? .max) < mut
        }
        return pending.contains(where: earlier) || writer.batch?.changes.contains(where: earlier) == true
    }

    /// Sends `line` (a refusal on the board's rules, a no-op's `ack`) to `session` now, or once the ops its client
    /// sent to the board before `mut` are answered.
    mutating func answerInOrder(_ line: ByteBuffer, key: ClientKey, mut: UInt64, to session: SessionRef, rejected: RejectCode?) {
        guard hasEarlier(key, below: mut) else {
            emit(.send(line, to: session, rejected: rejected))
            return
        }
        if let rejected { emit(.countRejected(rejected)) }
        held.append(HeldAnswer(key: key, mut: mut, line: line, session: session))
    }

    /// Sends the held answers whose client's earlier ops are all answered now.
    mutating func releaseHeld() {
        guard !held.isEmpty else { return }
        var still: [HeldAnswer] = []
        for answer in held {
            if hasEarlier(answer.key, below: answer.mut) {
                still.append(answer)
            } else {
                emit(.send(answer.line, to: answer.session, rejected: nil))
            }
        }
        held = still
    }

    /// The answers a batch carried that it will not publish (it was not stored, or is written again): held again,
    /// in their clients' order.
    mutating func takeBack(_ answers: [(after: Int, answer: HeldAnswer)]) {
        guard !answers.isEmpty else { return }
        held = (answers.map(\.answer) + held).sorted { $0.mut < $1.mut }
    }

    /// Rejects the changes of a batch that was not stored; they may be sent again.
    mutating func reject(_ dropped: [Pending], _ error: StoreError) {
        let code = error.rejectCode(during: .write)
        for change in dropped {
            guard let mut = change.event.mut else { continue }
            for session in change.answerees {
                reject(session, mut, code, "the change was not stored (\(error.message)); nothing was applied")
            }
        }
    }

    /// The store refused a batch because one of its changes reused a mutation id the client had committed on another
    /// board (its marks here did not know it). That one is the client's fault and gets `stale_mut`, naming the
    /// board; the others, any client's, are applied again without it and written, as after a catch-up.
    mutating func dropReused(_ batch: Batch, _ reused: StoreError.DuplicateMutation) {
        sinceSnapshot -= min(sinceSnapshot, UInt64(batch.changes.count))
        takeBack(batch.answers)
        var again: [Pending] = []
        for change in batch.changes + pending {
            if change.event.mut == reused.mut, change.event.clientID == reused.clientID,
                change.event.actor.rawValue == reused.actor
            {
                for session in change.answerees { emit(.rejectReused(session, mut: reused.mut)) }
            } else {
                again.append(change)
            }
        }
        applyAgain(again, committedElsewhere: [:])
    }
}
