import BoardClient
import BoardCore
import BoardWire
import Testing

/// The session's protocol transitions, walked with a manual clock and scripted server messages: subscribe, resume by
/// seq, exactly-once resends, the journal, divergence, gaps, rejects, requests. No sockets, no sleeping.
@Suite struct SessionMachineTests {
    static let t0 = ReplicaTests.t0
    static let wall = Timestamp(milliseconds: 1_767_225_600_000)

    static func welcome(client: ClientID = "cid-1") -> Welcome {
        var limits = WireLimits.defaults
        limits.heartbeatMs = 10_000
        return Welcome(session: "s1", user: "bob", clientID: client, server: "corkd", limits: limits)
    }

    static func session(journal: ClientJournal? = nil, paceOps: Bool = false) -> ClientSession {
        var session = ClientSession(
            settings: .init(
                endpoints: ["fake:1"], token: "t0ken", board: "main", paceOps: paceOps, hasJournal: journal != nil),
            journal: journal ?? ClientJournal())
        session.nextRandom = 0
        return session
    }

    /// Dials and says hello; returns the `hello`.
    static func connect(_ session: inout ClientSession, now: Duration = .zero) -> ClientMessage.Hello? {
        if case .idle = session.state { _ = session.start(now: now) }
        guard case .hello(let hello) = session.dialed(now: now).sent.first else { return nil }
        return hello
    }

    /// Connects, is welcomed, and loads `board` at `seq` live; returns the actions of the welcome.
    @discardableResult
    static func live(
        _ session: inout ClientSession, board: Board = ReplicaTests.board(), seq: UInt64 = 1, epoch: String = "e1"
    ) -> [ClientSession.Action] {
        _ = connect(&session)
        let actions = session.received(.welcome(welcome()), now: .zero)
        _ = session.received(
            .snapshot(ServerMessage.Snapshot(req: .string("sub"), board: "main", seq: seq, epoch: epoch, reason: .initial, state: board)),
            now: .zero)
        _ = session.received(
            .subscribed(ServerMessage.Subscribed(req: .string("sub"), board: "main", seq: seq, epoch: epoch)), now: .zero)
        return actions
    }

    static func submit(_ session: inout ClientSession, _ op: Op) throws -> (UInt64, [ClientSession.Action]) {
        let (mut, actions) = try session.submit(.op(op), wallClock: wall, now: .zero)
        return (mut, actions)
    }

    @Test func aWelcomeSubscribesAndTheSnapshotAndSubscribedMakeItLive() throws {
        var session = Self.session()
        #expect(Self.connect(&session)?.clientID == nil)
        guard case .wait = session.awaitBoard() else {
            Issue.record("a board before the welcome")
            return
        }
        let welcomed = session.received(.welcome(Self.welcome()), now: .zero)
        guard case .subscribe(let subscribe) = welcomed.sent.first else {
            Issue.record("no subscribe after the welcome: \(welcomed.sent)")
            return
        }
        #expect(subscribe.since == nil)
        #expect(session.isSubscribing)
        let loaded = session.received(
            .snapshot(ServerMessage.Snapshot(req: subscribe.req, board: "main", seq: 1, epoch: "e1", reason: .initial, state: ReplicaTests.board())),
            now: .zero)
        #expect(loaded.updates.map(\.cause) == [.snapshot])
        let subscribed = session.received(
            .subscribed(ServerMessage.Subscribed(req: subscribe.req, board: "main", seq: 1, epoch: "e1")), now: .zero)
        guard case .board(let board) = subscribed.resolutions.first else {
            Issue.record("the waiter did not get the board: \(subscribed.resolutions)")
            return
        }
        #expect(board.cards["c1"]?.title == "First")
        #expect(session.isSubscribed)
        guard case .ready = session.awaitBoard() else {
            Issue.record("not ready when live")
            return
        }
    }

    /// The reconnect bug class: after a drop, `hello` carries the client id, `subscribe` resumes from the replica's
    /// seq and epoch, and the op that was never acknowledged is sent again with its original mut; the acked one is
    /// not.
    @Test func aReconnectResumesFromTheSeqAndResendsOnlyUnacknowledgedOpsWithTheirMuts() throws {
        var session = Self.session()
        Self.live(&session)
        let (m1, a1) = try Self.submit(&session, .closeCard(card: "c1"))
        let (m2, a2) = try Self.submit(&session, .editCard(EditCard(card: "c1", title: "Renamed")))
        #expect((a1.sent + a2.sent).count == 2)
        #expect(session.replica?.view?.cards["c1"]?.title == "Renamed")
        _ = session.received(.ack(ServerMessage.Ack(board: "main", mut: m1, seq: 2)), now: .zero)
        _ = session.closed(SessionConnectionTests.dropped, now: .seconds(1))
        #expect(session.timerFired(now: .seconds(2)).dial == 0)
        #expect(Self.connect(&session, now: .seconds(2))?.clientID == "cid-1")
        let welcomed = session.received(.welcome(Self.welcome()), now: .seconds(2))
        guard case .subscribe(let resume) = welcomed.sent.first else {
            Issue.record("no subscribe: \(welcomed.sent)")
            return
        }
        #expect(resume.since == 1)
        #expect(resume.epoch == "e1")
        let ops = welcomed.sent.compactMap { if case .op(let op) = $0 { op.mut } else { nil } }
        #expect(ops == [m2], "only the unacknowledged op goes again, with its mut")
    }

    /// The journal: an op is not sent before the generation holding it is on disk; then it goes and its submitter
    /// returns. The journal keeps the client id from the welcome.
    @Test func anOpIsSentOnlyOnceItsJournalGenerationIsOnDisk() throws {
        var session = Self.session(journal: ClientJournal())
        Self.live(&session)
        let (mut, submitted) = try Self.submit(&session, .closeCard(card: "c1"))
        #expect(submitted.sent.isEmpty, "sent before it is on disk")
        #expect(submitted.persists)
        #expect(session.awaitsDurable(mut))
        let next = session.journalToWrite()
        let (journal, generation) = try #require(next)
        #expect(journal.clientID == "cid-1")
        #expect(journal.pending.map(\.mut) == [mut])
        #expect(session.journalToWrite() == nil, "one write per change")
        let written = session.journalWritten(generation, error: nil, now: .zero)
        #expect(written.sent.count == 1)
        guard case .durable(mut) = written.resolutions.first else {
            Issue.record("the submitter was not released: \(written.resolutions)")
            return
        }
    }

    /// The journal-failure bug: a failed write takes the op back (rolled back on the board, never sent later) and
    /// its submitter hears why.
    @Test func aFailedJournalWriteTakesTheOpBackForGood() throws {
        var session = Self.session(journal: ClientJournal())
        Self.live(&session)
        let (mut, _) = try Self.submit(&session, .editCard(EditCard(card: "c1", title: "Lost")))
        let next = session.journalToWrite()
        let (_, generation) = try #require(next)
        let failed = session.journalWritten(generation, error: ClientError(.journal, "disk full"), now: .zero)
        #expect(failed.sent.isEmpty)
        guard case .notDurable(mut, let error) = failed.resolutions.first else {
            Issue.record("no failure for the submitter: \(failed.resolutions)")
            return
        }
        #expect(error.code == .journal)
        #expect(failed.updates.map(\.cause) == [.rollback])
        #expect(session.replica?.view?.cards["c1"]?.title == "First")
        #expect(session.pendingOps.isEmpty)
        _ = session.closed(SessionConnectionTests.dropped, now: .zero)
        _ = session.timerFired(now: .seconds(1))
        _ = Self.connect(&session, now: .seconds(1))
        let welcomed = session.received(.welcome(Self.welcome()), now: .seconds(1))
        #expect(!welcomed.sent.contains { if case .op = $0 { true } else { false } })
    }

    /// Ops restored from a journal go out after the welcome with their muts, on top of the snapshot.
    @Test func opsFromTheJournalAreResentWithTheirMutsAfterARestart() throws {
        let kept = PendingOp(board: "main", mut: 7, request: .op(.closeCard(card: "c1")))
        var session = Self.session(journal: ClientJournal(clientID: "cid-1", nextMut: 8, pending: [kept]))
        #expect(Self.connect(&session)?.clientID == "cid-1")
        let welcomed = session.received(.welcome(Self.welcome()), now: .zero)
        #expect(welcomed.sent.compactMap { if case .op(let op) = $0 { op.mut } else { nil } } == [UInt64(7)])
        _ = session.received(
            .snapshot(ServerMessage.Snapshot(req: .string("sub"), board: "main", seq: 1, epoch: "e1", reason: .initial, state: ReplicaTests.board())),
            now: .zero)
        #expect(session.replica?.view?.cards["c1"]?.closed == true, "the restored op shows on the snapshot")
        let (next, _) = try Self.submit(&session, .reopenCard(card: "c1"))
        #expect(next == 8)
    }

    /// The divergence bug: a delta that does not apply drops the confirmed board and subscribes afresh, keeping
    /// the pending ops, which go back on top of the new snapshot.
    @Test func aDeltaThatDoesNotApplyStartsOverFromASnapshotKeepingPendingOps() throws {
        var session = Self.session()
        Self.live(&session)
        let (mut, _) = try Self.submit(&session, .editCard(EditCard(card: "c1", title: "Mine")))
        let bad = ServerMessage.Delta(
            board: "main", seq: 2, at: Self.t0, actor: "alice", op: .closeCard(card: "nope"),
            activity: Activity(seq: 2, at: Self.t0, actor: "alice", kind: "card.close", changes: [:]))
        let actions = session.received(.delta(bad), now: .zero)
        guard case .subscribe(let fresh) = actions.sent.first else {
            Issue.record("no fresh subscribe: \(actions.sent)")
            return
        }
        #expect(fresh.since == nil)
        #expect(session.replica == nil)
        #expect(session.pendingOps.map(\.mut) == [mut])
        _ = session.received(
            .snapshot(ServerMessage.Snapshot(req: fresh.req, board: "main", seq: 2, epoch: "e1", reason: .initial, state: ReplicaTests.board())),
            now: .zero)
        #expect(session.replica?.view?.cards["c1"]?.title == "Mine")
    }

    /// A resumed replica whose hash differs from `subscribed.hash` at the same seq has diverged: it starts over.
    /// The same hash, or a snapshot just loaded, is taken as it is.
    @Test func aResumedReplicaWithAnotherHashStartsOver() throws {
        var session = Self.session()
        Self.live(&session)
        _ = session.closed(SessionConnectionTests.dropped, now: .zero)
        _ = session.timerFired(now: .seconds(1))
        _ = Self.connect(&session, now: .seconds(1))
        _ = session.received(.welcome(Self.welcome()), now: .seconds(1))
        let wrong = session.received(
            .subscribed(ServerMessage.Subscribed(req: .string("sub"), board: "main", seq: 1, epoch: "e1", hash: "sha256:00")),
            now: .seconds(1))
        guard case .subscribe(let fresh) = wrong.sent.first else {
            Issue.record("a diverged hash was accepted: \(wrong.sent)")
            return
        }
        #expect(fresh.since == nil)
        let board = ReplicaTests.board()
        _ = session.received(
            .snapshot(ServerMessage.Snapshot(req: fresh.req, board: "main", seq: 1, epoch: "e1", reason: .initial, state: board)),
            now: .seconds(1))
        let right = session.received(
            .subscribed(ServerMessage.Subscribed(req: fresh.req, board: "main", seq: 1, epoch: "e1", hash: "sha256:00")),
            now: .seconds(1))
        #expect(right.sent.isEmpty, "a snapshot just loaded is not checked (a hash bug would loop)")
        #expect(session.isSubscribed)
    }

    @Test func resyncRequiredStartsOverFromASnapshot() {
        var session = Self.session()
        Self.live(&session)
        let actions = session.received(.error(WireError(.resyncRequired, "too far behind", board: "main")), now: .zero)
        guard case .subscribe(let fresh) = actions.sent.first else {
            Issue.record("no fresh subscribe: \(actions.sent)")
            return
        }
        #expect(fresh.since == nil)
    }

    /// A gap is fetched; a fetch that did not move the gap (a delta this client cannot read) starts over instead
    /// of fetching for ever.
    @Test func aGapIsFetchedAndAFetchThatDidNotHelpStartsOver() {
        var session = Self.session()
        Self.live(&session)
        let board = ReplicaTests.board()
        let d3 = ReplicaTests.delta(.closeCard(card: "c1"), seq: 3, on: board)
        let held = session.received(.delta(d3), now: .zero)
        guard case .fetch(let fetch) = held.sent.first else {
            Issue.record("no fetch: \(held.sent)")
            return
        }
        #expect(fetch.from == 2 && fetch.to == 2)
        #expect(session.fetching == 2...2)
        let done = session.received(.ok(ServerMessage.Ok(req: .string("gap"), board: "main")), now: .zero)
        guard case .subscribe(let fresh) = done.sent.first else {
            Issue.record("fetched the same gap again: \(done.sent)")
            return
        }
        #expect(fresh.since == nil)
    }

    /// A snapshot of another epoch (the store was restored): acks are void, every pending op goes again.
    @Test func aSnapshotOfAnotherEpochResendsEveryPendingOp() throws {
        var session = Self.session()
        Self.live(&session)
        let (mut, _) = try Self.submit(&session, .closeCard(card: "c1"))
        _ = session.received(.ack(ServerMessage.Ack(board: "main", mut: mut, seq: 2)), now: .zero)
        let restored = session.received(
            .snapshot(ServerMessage.Snapshot(req: nil, board: "main", seq: 1, epoch: "e2", reason: .initial, state: ReplicaTests.board())),
            now: .zero)
        #expect(restored.sent.compactMap { if case .op(let op) = $0 { op.mut } else { nil } } == [mut])
    }

    /// A retryable reject sends the op again later under a new mut (its waiters follow); a final reject rolls back.
    @Test func aRetryableRejectResendsLaterUnderANewMutAndAFinalOneRollsBack() throws {
        var session = Self.session()
        Self.live(&session)
        let (mut, _) = try Self.submit(&session, .editCard(EditCard(card: "c1", title: "Try")))
        let limited = session.received(
            .reject(ServerMessage.Reject(board: "main", mut: mut, code: .rateLimited, message: "slow down", retryAfterMs: 500)),
            now: .zero)
        guard case .opMoved(mut, let again) = limited.resolutions.first else {
            Issue.record("no move: \(limited.resolutions)")
            return
        }
        #expect(limited.sent.isEmpty, "held for retry_after_ms")
        #expect(limited.scheduled == .some(.milliseconds(500)))
        #expect(session.status(of: mut) == .pending(mut: again))
        let resent = session.timerFired(now: .milliseconds(500))
        #expect(resent.sent.compactMap { if case .op(let op) = $0 { op.mut } else { nil } } == [again])
        let final = session.received(
            .reject(ServerMessage.Reject(board: "main", mut: again, rejection: Rejection(.conflict, "no"))), now: .seconds(1))
        #expect(final.updates.map(\.cause) == [.rollback])
        guard case .rejected = final.outcomes[again] else {
            Issue.record("no rejected outcome: \(final.outcomes)")
            return
        }
        #expect(session.status(of: mut) == final.outcomes[again].map { .finished($0) })
        #expect(session.replica?.view?.cards["c1"]?.title == "First")
    }

    /// An op line the server could not read (an `error` with its mut) will never apply: dropped, its waiter fails.
    @Test func anOpTheServerCouldNotReadFails() throws {
        var session = Self.session()
        Self.live(&session)
        let (mut, _) = try Self.submit(&session, .closeCard(card: "c1"))
        let actions = session.received(.error(WireError(.unknownOp, "no such op", mut: mut)), now: .zero)
        guard case .opFailed(mut, _) = actions.resolutions.first else {
            Issue.record("no failure: \(actions.resolutions)")
            return
        }
        #expect(session.pendingOps.isEmpty)
        // UIs are told as of a reject: the web page showed nothing when a description past the server's string
        // limit was refused this way, and its text looked saved.
        let told = actions.events.compactMap { if case .rejected(let rejected) = $0 { rejected } else { nil } }
        #expect(told.map(\.reject.mut) == [mut] && told.first?.reject.message == "no such op", "\(actions.events)")
        #expect(told.first?.op.request == .op(.closeCard(card: "c1")))
        #expect(actions.updates.map(\.cause) == [.rollback])
    }

    /// A failed subscribe is reported to the waiter; with nobody waiting it is kept and reported once.
    @Test func aFailedSubscribeIsReportedOnce() {
        var session = Self.session()
        _ = Self.connect(&session)
        _ = session.received(.welcome(Self.welcome()), now: .zero)
        let failed = session.received(.error(WireError(.notFound, "no board", req: .string("sub"), board: "main")), now: .zero)
        guard case .boardFailed(let error) = failed.resolutions.first else {
            Issue.record("no failure: \(failed.resolutions)")
            return
        }
        #expect(error.server?.code == .notFound)
        guard case .failed = session.awaitBoard() else {
            Issue.record("the failure was not kept for the next caller")
            return
        }
        guard case .wait(let again) = session.awaitBoard(), case .subscribe = again.sent.first else {
            Issue.record("the next caller does not subscribe again")
            return
        }
    }

    /// A fatal server error closes the connection and stops the session with its code.
    @Test func aFatalServerErrorStops() {
        var session = Self.session()
        _ = Self.connect(&session)
        let actions = session.received(.error(WireError(.authFailed, "bad token")), now: .zero)
        #expect(actions.closes)
        #expect(actions.stopped??.server?.code == .authFailed)
        #expect(session.isStopped)
    }

    /// Requests go once authenticated and again after a reconnect until answered; one given up on is not resent.
    @Test func requestsAreResentAfterAReconnectUntilAnswered() throws {
        var session = Self.session()
        _ = Self.connect(&session)
        let (kept, early) = try session.request { .listBoards(ClientMessage.ListBoards(req: $0)) }
        #expect(early.isEmpty, "sent before the welcome")
        let (dropped, _) = try session.request { .ping(Heartbeat(req: $0)) }
        session.abandonRequest(dropped)
        let welcomed = session.received(.welcome(Self.welcome()), now: .zero)
        #expect(welcomed.sent.contains { if case .listBoards = $0 { true } else { false } })
        #expect(!welcomed.sent.contains { if case .ping = $0 { true } else { false } })
        let answered = session.received(.boards(ServerMessage.BoardList(req: kept, boards: [])), now: .zero)
        guard case .answer(kept, _) = answered.resolutions.first else {
            Issue.record("not answered: \(answered.resolutions)")
            return
        }
    }

    /// Switching boards: the old subscription ends, acked ops of the old board are done, the others wait for it.
    @Test func switchingBoardsUnsubscribesAndKeepsUnackedOps() throws {
        var session = Self.session()
        Self.live(&session)
        let (acked, _) = try Self.submit(&session, .closeCard(card: "c1"))
        let (waiting, _) = try Self.submit(&session, .reopenCard(card: "c1"))
        _ = session.received(.ack(ServerMessage.Ack(board: "main", mut: acked, seq: 2)), now: .zero)
        let actions = session.switchBoard(to: "other", now: .zero)
        #expect(actions.outcomes[acked] == .applied(seq: 2))
        guard case .unsubscribe = actions.sent.first, case .subscribe(let next) = actions.sent.last else {
            Issue.record("no unsubscribe and subscribe: \(actions.sent)")
            return
        }
        #expect(next.board == "other")
        #expect(session.pendingOps.map(\.mut) == [waiting])
    }

    /// Pacing: ops beyond the bucket wait for the timer, which sends them when it refills; no polling.
    @Test func pacedOpsWaitForTheTimer() throws {
        var session = Self.session(paceOps: true)
        Self.live(&session)  // 20 ops/s → 18/s, burst 20
        var sent = 0
        for _ in 0..<25 { sent += try Self.submit(&session, .editCard(EditCard(card: "c1", title: "x"))).1.sent.count }
        #expect(sent < 25)
        let deadline = try #require(session.nextDeadline(now: .zero))
        #expect(deadline > .zero && deadline < .seconds(1))
        var now = Duration.zero
        while sent < 25, now < .seconds(10) {
            now += .seconds(1)
            sent += session.timerFired(now: now).sent.count
        }
        #expect(sent == 25)
        #expect(now == .seconds(2), "18 ops/s with a burst of 20: the rest go within two seconds")
    }
}
