import BoardCore
import BoardStore
import BoardWire
import NIOCore

extension BoardMachine {
    /// What an op's submission tells the session.
    enum SubmitOutcome: Sendable, Equatable {
        /// The op was answered (`reject`, or `ack` at once or once durable).
        case answered
        /// Answered with `reject` `rate_limited`: no token for `retryAfterMs`; the client's highest mut applied or
        /// pending here is `highestMut` (see `EmptyBuckets`).
        case rateLimited(retryAfterMs: UInt64, highestMut: UInt64)
        /// The board is no longer served here (archived): nothing was answered; look the board up again.
        case closed
        /// The bucket was empty after `rate_close_ms` of continuous rate limiting: nothing was answered; the session
        /// closes the connection with `too_many_errors` (Protocol.md, "Rate limit").
        case closeForRate
    }

    /// An op on its way through the checks, held by the driver while the store is read for it.
    struct Submission {
        let request: OpRequest
        let mut: UInt64
        let session: SessionRef
        /// The wait the user's token bucket gave it on arrival (nil: a token was taken).
        let rateWait: UInt64?
        let nowMs: Int64
        fileprivate(set) var stage = Stage.marks
        /// Whether it is counted in `reads` (it waited for the store at least once).
        fileprivate(set) var reading = false
        /// Whether the store said what the client's marks on this board are (nil marks: none committed yet).
        fileprivate(set) var marksRead = false
        fileprivate(set) var undoTarget: (activity: Activity, inverse: Op?)?

        var key: ClientKey { ClientKey(user: session.user, client: session.clientID) }
        var mutation: Mutation { Mutation(client: key, mut: mut) }
    }

    /// The checks in their order.
    enum Stage {
        /// The client's highest committed mut on this board is known.
        case marks
        /// A mut at or below it is looked up (it may be a resend of an applied op).
        case applied
        /// The rate verdict taken on arrival, then what the request is.
        case verdict
        /// Applied by the reducer.
        case apply
    }

    /// A read of the store an op needs before it can go on.
    enum Read: Equatable {
        /// The client's highest committed mut on this board.
        case lastMutation(user: UserID, client: ClientID)
        /// Whether (and where) the client's mutation was committed.
        case committed(user: UserID, client: ClientID, mut: UInt64)
        /// The change an undo names, older than the log holds.
        case change(seq: UInt64)
    }

    /// What a read answered.
    enum Answer {
        case lastMutation(UInt64?)
        case committed(StoredEvent?)
        case change(StoredEvent?)
        /// The store could not be read.
        case failed(StoreError)
    }

    /// Where an op stands after a call.
    enum Step {
        /// Done; the actions answer it (or it waits in `pending` for its `ack`).
        case done(SubmitOutcome)
        /// Read the store, then call ``resume(_:with:now:)``.
        case read(Submission, Read)
    }

    /// Applies one op from a session, exactly once per (user, client id, mut).
    ///
    /// The checks, in order: the board is served; the user is a member of the durable board (access is never
    /// granted on a change that is not stored yet); a token of the user's bucket is taken before anything is read,
    /// but its verdict applies only after the exactly-once checks, so a resend of an applied op gets its original
    /// ack even over the rate, and a client that re-sends a rate-limited op under a new mut never doubles it; a
    /// resend of a change still pending attaches to it; the client's marks are read from the store if unknown; a
    /// mut at or below them is looked up; then the reducer.
    mutating func submit(_ request: OpRequest, mut: UInt64, from session: SessionRef, nowMs: Int64, now: Timestamp)
        -> (Step, [Action])
    {
        switch state {
        case .closed: return (.done(.closed), take())
        case .ended(final: true):
            reject(session, mut, .storageBusy, "the server is shutting down; nothing was applied", retryAfterMs: 1_000)
            return (.done(.answered), take())
        case .ended(final: false): state = .serving(.idle)
        case .serving, .stopping: break
        }
        guard committed.members[session.user] != nil, head.members[session.user] != nil else {
            reject(session, mut, .rejected(.notFound), "no board \(id)")
            return (.done(.answered), take())
        }
        var bucket =
            rateBuckets[session.user] ?? TokenBucket(rate: limits.rateOpsPerS, burst: limits.rateBurst, nowMs: nowMs)
        let rateWait = bucket.take(nowMs: nowMs)
        rateBuckets[session.user] = bucket
        let submission = Submission(request: request, mut: mut, session: session, rateWait: rateWait, nowMs: nowMs)
        if attachToPending(submission.key, mut: mut, session) { return (.done(.answered), take()) }
        if isUnresolved {
            reject(session, mut, .storageBusy, Self.unresolvedMessage)
            return (.done(.answered), take())
        }
        return (advance(submission, now: now), take())
    }

    /// Goes on with an op after the read it asked for.
    mutating func resume(_ submission: Submission, with answer: Answer, now: Timestamp) -> (Step, [Action]) {
        var submission = submission
        let session = submission.session
        switch answer {
        case .failed(let error):
            reject(session, submission.mut, error.rejectCode(during: .read), "the store could not be read: \(error)")
            return (finish(submission, .answered), take())
        case .lastMutation(let stored):
            if let stored { lastMut[submission.key] = max(lastMut[submission.key] ?? 0, stored) }
            submission.marksRead = true
            submission.stage = .applied
        case .committed(let event):
            guard let event else {
                // Never applied anywhere: evaluated like any op.
                submission.stage = .verdict
                break
            }
            if event.board == id {
                ack(session, mut: submission.mut, seq: event.seq)
            } else {
                reject(
                    session, submission.mut, .staleMut,
                    "mutation \(submission.mut) of this client was applied on board \(event.board); mutation ids are "
                        + "per client, across boards")
            }
            return (finish(submission, .answered), take())
        case .change(let event):
            guard let event else {
                let seq = if case .undo(let seq) = submission.request { seq } else { UInt64(0) }
                refuse(submission, Rejection(.notFound, "no change \(seq) on board \(id)"))
                return (finish(submission, .answered), take())
            }
            submission.undoTarget = (event.activity, event.inverse)
            submission.stage = .apply
        }
        return (advance(submission, now: now), take())
    }

    /// Runs the checks from the op's stage on, until it is answered or needs a read.
    private mutating func advance(_ start: Submission, now: Timestamp) -> Step {
        var submission = start
        let (session, mut, key) = (submission.session, submission.mut, submission.key)
        while true {
            switch submission.stage {
            case .marks:
                guard lastMut[key] != nil || submission.marksRead else {
                    return wait(&submission, .lastMutation(user: key.user, client: key.client))
                }
                submission.stage = .applied
            case .applied:
                if let last = lastMut[key], mut <= last {
                    return wait(&submission, .committed(user: key.user, client: key.client, mut: mut))
                }
                submission.stage = .verdict
            case .verdict:
                if submission.reading, answeredMeanwhile(submission) { return finish(submission, .answered) }
                if let wait = submission.rateWait {
                    var run = rateRuns[session.id] ?? RateLimitRun(closeAfterMs: Int64(limits.rateCloseMs))
                    let closes = run.limited(nowMs: submission.nowMs)
                    rateRuns[session.id] = run
                    if closes { return finish(submission, .closeForRate) }
                    reject(
                        session, mut, .rateLimited, "over \(limits.rateOpsPerS) ops/s; retry in \(wait) ms",
                        retryAfterMs: wait)
                    return finish(
                        submission,
                        .rateLimited(retryAfterMs: wait, highestMut: max(lastMut[key] ?? 0, pendingMut[key] ?? 0)))
                }
                switch submission.request {
                case .op:
                    submission.stage = .apply
                case .invalid(let kind, let problem, _):
                    // It decoded (known kind, right JSON types) but a value is out of range: the reducer's verdict.
                    refuse(submission, Rejection(.invalid, "\(kind): \(problem)"))
                    return finish(submission, .answered)
                case .undo(let seq):
                    guard seq >= 1, seq <= committed.seq else {
                        refuse(submission, Rejection(.notFound, "no change \(seq) on board \(id)"))
                        return finish(submission, .answered)
                    }
                    guard let entry = log.entry(seq) else { return wait(&submission, .change(seq: seq)) }
                    submission.undoTarget = (entry.activity, entry.inverse)
                    submission.stage = .apply
                }
            case .apply:
                return finish(submission, apply(submission, now: now))
            }
        }
    }

    /// The op waits for a read; counted in `reads` so a commit of its mutation meanwhile is noted.
    private mutating func wait(_ submission: inout Submission, _ read: Read) -> Step {
        if !submission.reading {
            submission.reading = true
            reads[submission.mutation, default: StoreRead()].readers += 1
        }
        return .read(submission, read)
    }

    /// The op is answered: it no longer counts among the readers.
    private mutating func finish(_ submission: Submission, _ outcome: SubmitOutcome) -> Step {
        if submission.reading, var read = reads[submission.mutation] {
            read.readers -= 1
            reads[submission.mutation] = read.readers > 0 ? read : nil
        }
        return .done(outcome)
    }

    /// Applies a checked op to `head`: rejected, a no-op acknowledged at once, or pending for the writer.
    private mutating func apply(_ submission: Submission, now: Timestamp) -> SubmitOutcome {
        let (session, mut) = (submission.session, submission.mut)
        // The reads let other ops in, and the board may have changed meanwhile: checked again.
        if submission.reading, answeredMeanwhile(submission) { return .answered }
        switch state {
        case .closed: return .closed
        case .ended(final: false): state = .serving(.idle)
        case .ended(final: true):
            reject(session, mut, .storageBusy, "the server is shutting down; nothing was applied", retryAfterMs: 1_000)
            return .answered
        case .serving, .stopping: break
        }
        if isUnresolved {
            reject(session, mut, .storageBusy, Self.unresolvedMessage)
            return .answered
        }
        guard committed.members[session.user] != nil, let member = head.members[session.user] else {
            reject(session, mut, .rejected(.notFound), "no board \(id)")
            return .answered
        }
        let context = ApplyContext(
            actor: session.user, role: member.role, now: now, seq: head.seq + 1, membersMax: limits.membersMax)
        let op: Op
        let result: Result<(activity: Activity, inverse: Op?, isNoop: Bool), Rejection>
        var undoOf: UInt64?
        if let target = submission.undoTarget, case .undo(let seq) = submission.request {
            op = target.inverse ?? .chat(text: "")
            undoOf = seq
            result = head.applyUndo(of: target.activity, inverse: target.inverse, context: context)
        } else if case .op(let requested) = submission.request {
            op = requested
            result = Self.refusal(of: requested, on: head).map { .failure($0) } ?? head.apply(op, context: context)
        } else {
            return .answered
        }
        switch result {
        case .failure(let rejection):
            refuse(submission, rejection)
        case .success(let change) where change.isNoop:
            let ack = ByteBuffer(bytes: LineWriter.ackLine(board: id, mut: mut, seq: head.seq, noop: true))
            answerInOrder(ack, key: submission.key, mut: mut, to: session, rejected: nil)
        case .success(let change):
            let event = StoredEvent(
                board: id, seq: context.seq, at: context.now, actor: session.user,
                clientID: session.clientID.rawValue, mut: mut, op: op, activity: change.activity,
                inverse: change.inverse, undoOf: undoOf)
            pending.append(Pending(event, origin: session, undoTarget: submission.undoTarget))
            pendingMut[submission.key] = max(pendingMut[submission.key] ?? 0, mut)
            handOver()
        }
        return .answered
    }

    /// Refuses an op on the board's rules, in its client's order (``answerInOrder(_:key:mut:to:rejected:)``).
    private mutating func refuse(_ submission: Submission, _ rejection: Rejection) {
        let line = Lines.line(.reject(ServerMessage.Reject(board: id, mut: submission.mut, rejection: rejection)))
        answerInOrder(line, key: submission.key, mut: submission.mut, to: submission.session, rejected: .rejected(rejection.code))
    }

    /// A rule for new ops that the reducer does not hold (a board that replays its log must replay the changes it
    /// accepted before the rule), or nil: a card waits only for a card that can be finished, and only a card on the
    /// board waits. Blocking with an archived card made a dependency that could never count until the card came back.
    static func refusal(of op: Op, on board: Board) -> Rejection? {
        guard case .blockCard(let card, let blocker) = op else { return nil }
        if let waiting = board.cards[card], waiting.archived {
            return Rejection(.invalid, "#\(waiting.number) is archived: restore it before it waits for another card")
        }
        if let other = board.cards[blocker], other.archived {
            return Rejection(.invalid, "#\(other.number) is archived: a card cannot wait for it (restore it first)")
        }
        return nil
    }

    /// After the op waited for the store: true when the same mutation was committed meanwhile (answered with its
    /// ack) or is waiting for the store now (answered when it commits).
    private mutating func answeredMeanwhile(_ submission: Submission) -> Bool {
        if let seq = reads[submission.mutation]?.committedAt {
            ack(submission.session, mut: submission.mut, seq: seq)
            return true
        }
        return attachToPending(submission.key, mut: submission.mut, submission.session)
    }

    /// A resend of a change still waiting for the store is acknowledged when it commits: true when `mut` was found
    /// there. Only a mut at or below the client's highest pending one can be such a resend, so the common case scans
    /// nothing.
    private mutating func attachToPending(_ key: ClientKey, mut: UInt64, _ session: SessionRef) -> Bool {
        guard let highest = pendingMut[key], mut <= highest else { return false }
        let matches: (Pending) -> Bool = {
            $0.event.clientID == key.client.rawValue && $0.event.actor == key.user && $0.event.mut == mut
        }
        if let index = writer.batch?.changes.firstIndex(where: matches) {
            writer.batch?.changes[index].resentBy.append(session)
            return true
        }
        if let index = pending.firstIndex(where: matches) {
            pending[index].resentBy.append(session)
            return true
        }
        return false
    }

    /// Applies ops on behalf of the server itself, all or none: tried in order on a copy of the head, and only when
    /// every one is accepted are they pending together, so they are committed in one batch (one transaction). The
    /// first refusal is returned and nothing is applied; else the seq of the last change, which `adminChange(at:)`
    /// follows until it is durable (nil when none changed anything).
    mutating func applyAsServer(_ ops: [Op], now: Timestamp) -> (Result<UInt64?, Rejection>, [Action]) {
        if case .ended(final: false) = state { state = .serving(.idle) }
        var trial = head
        var events: [StoredEvent] = []
        for op in ops {
            let context = ApplyContext(
                actor: "corkd", role: .owner, now: now, seq: trial.seq + 1, membersMax: limits.membersMax)
            switch trial.apply(op, context: context) {
            case .failure(let rejection):
                return (.failure(rejection), take())
            case .success(let change) where change.isNoop:
                continue
            case .success(let change):
                events.append(
                    StoredEvent(
                        board: id, seq: context.seq, at: context.now, actor: "corkd", clientID: nil, mut: nil, op: op,
                        activity: change.activity, inverse: change.inverse, undoOf: nil))
            }
        }
        guard let last = events.last else { return (.success(nil), take()) }
        head = trial
        pending.append(contentsOf: events.map { Pending($0, origin: nil) })
        handOver()
        return (.success(last.seq), take())
    }

    /// What a refused op is told while a commit's outcome is unknown.
    static let unresolvedMessage =
        "the connection to the database was lost during a commit and the database does not answer yet; nothing was applied"
}
