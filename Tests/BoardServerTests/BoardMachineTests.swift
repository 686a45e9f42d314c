import BoardCore
import BoardStore
import BoardWire
import Foundation
import NIOCore
import NIOEmbedded
import Testing
@testable import BoardServer

/// The board's state machine alone: no socket, no store, no clock. Each test feeds it events (ops, the writer's
/// answers, reads of the store, announced heads, timers) with the time passed in, and checks the actions it asks for.
@Suite struct BoardMachineTests {
    static let t0 = Timestamp(milliseconds: 1_795_000_000_000)

    static func board() -> Board {
        var board = Board(id: "main", name: "Main", owner: "owner")
        board.members["ann"] = Member(id: "ann", role: .editor)
        return board
    }

    static func machine(_ configure: (inout WireLimits) -> Void = { _ in }) -> BoardMachine {
        var limits = WireLimits()
        configure(&limits)
        return BoardMachine(id: "main", board: board(), limits: limits, snapshotInterval: 1_000)
    }

    static func session(_ id: String, user: UserID = "owner", client: String? = nil) -> SessionRef {
        SessionRef(
            id: SessionID(id), user: user, clientID: ClientID(client ?? "client-\(id)"),
            outbox: Outbox(channel: EmbeddedChannel()))
    }

    /// Submits an op whose client's marks are known to be empty (the store answered "none"), returning what it asked
    /// for once answered.
    static func submit(
        _ machine: inout BoardMachine, _ op: Op, mut: UInt64, from session: SessionRef, nowMs: Int64 = 0
    ) -> (BoardMachine.SubmitOutcome, [BoardMachine.Action]) {
        var (step, actions) = machine.submit(.op(op), mut: mut, from: session, nowMs: nowMs, now: t0)
        while case .read(let submission, let read) = step {
            let answer: BoardMachine.Answer =
                switch read {
                case .lastMutation: .lastMutation(nil)
                case .committed: .committed(nil)
                case .change: .change(nil)
                }
            let next = machine.resume(submission, with: answer, now: t0)
            step = next.0
            actions += next.1
        }
        guard case .done(let outcome) = step else { return (.answered, actions) }
        return (outcome, actions)
    }

    /// The lines of the `send` actions to `session`, as `type mut seq` or `type mut code`, with the answers a commit
    /// carries for it (sent right after a change of the batch once it is durable).
    static func sent(_ actions: [BoardMachine.Action], to session: SessionRef) throws -> [String] {
        let lines = actions.flatMap { action -> [ByteBuffer] in
            switch action {
            case .send(let line, let to, _) where to == session: [line]
            case .commit(let commit): commit.publication.entries.flatMap { $0.then.filter { $0.session == session }.map(\.line) }
            default: []
            }
        }
        return try lines.compactMap { line -> String? in
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(line.readableBytesView)) as? [String: Any])
            let type = object["type"] as? String ?? "?"
            let mut = object["mut"] as? Int ?? -1
            if type == "ack" { return "ack \(mut) seq \(object["seq"] as? Int ?? -1)\(object["noop"] != nil ? " noop" : "")" }
            return "\(type) \(mut) \(object["code"] as? String ?? "")"
        }
    }

    static func commits(_ actions: [BoardMachine.Action]) -> [BoardMachine.Commit] {
        actions.compactMap { if case .commit(let commit) = $0 { commit } else { nil } }
    }

    static func reads(_ actions: [BoardMachine.Action]) -> [UInt64] {
        actions.compactMap { if case .readChanges(let from) = $0 { from } else { nil } }
    }

    /// Changes another node committed after `board`, each applied as the stored log would be.
    static func elsewhere(after board: Board, _ ops: [(UserID, Op)], client: String = "other-node") -> [StoredEvent] {
        var board = board
        var events: [StoredEvent] = []
        for (index, (actor, op)) in ops.enumerated() {
            let context = ApplyContext(actor: actor, role: .owner, now: t0, seq: board.seq + 1)
            guard case .success(let change) = board.apply(op, context: context) else { continue }
            events.append(
                StoredEvent(
                    board: "main", seq: context.seq, at: t0, actor: actor, clientID: client, mut: UInt64(100 + index),
                    op: op, activity: change.activity, inverse: change.inverse))
        }
        return events
    }

    @Test func oneBatchIsInTheWriterAtATimeAndWhatArrivesMeanwhileFollowsItsAnswer() throws {
        var machine = Self.machine()
        let owner = Self.session("s1")
        let (_, first) = Self.submit(&machine, .chat(text: "one"), mut: 1, from: owner)
        #expect(Self.commits(first).map(\.number) == [1])
        #expect(Self.commits(first).first?.changes.map(\.event.seq) == [1])
        let (_, second) = Self.submit(&machine, .chat(text: "two"), mut: 2, from: owner)
        let (_, third) = Self.submit(&machine, .chat(text: "three"), mut: 3, from: owner)
        #expect(Self.commits(second + third).isEmpty, "batch 1 is still in the writer")
        #expect(machine.head.seq == 3 && machine.committed.seq == 0)
        let answered = machine.written(.success(()), batch: 1)
        #expect(machine.committed.seq == 1)
        let next = try #require(Self.commits(answered).first)
        #expect(next.number == 2 && next.changes.map(\.event.seq) == [2, 3], "what waited goes as one batch")
        #expect(next.publication.entries.map(\.origin) == [owner, owner], "each origin gets its ack from the writer")
        #expect(try Self.sent(answered, to: owner) == [], "the writer published batch 1's ack, not the machine")
        _ = machine.written(.success(()), batch: 2)
        #expect(machine.committed.seq == 3 && machine.isDrained)
    }

    /// A refusal on the board's rules, and a no-op's ack, wait for the answers to the ops the same client sent
    /// before them to the board, so its answers read in the order it sent its ops; with nothing earlier unanswered
    /// they go out at once. One that waits on a change committed in the same batch as the client's later changes
    /// goes out with that batch, right after its ack: it had been sent after the whole batch (a probe read `ack 104`,
    /// `ack 105`, `ack 106`, then `reject 103`), and a no-op's ack at once, ahead of the ack of the change whose seq it
    /// names.
    @Test func answersWithoutACommitKeepTheClientsOrder() throws {
        var machine = Self.machine()
        let owner = Self.session("s1")
        let (_, first) = Self.submit(&machine, .addCard(AddCard(card: "a", column: "todo", title: "A")), mut: 1, from: owner)
        #expect(Self.commits(first).map(\.number) == [1], "batch 1 holds the writer")
        // Pending behind batch 1: an edit, a refusal, a chat, a no-op (closing a card twice).
        var early = Self.submit(&machine, .editCard(EditCard(card: "a", title: "A2")), mut: 2, from: owner).1
        early += Self.submit(&machine, .editCard(EditCard(card: "nope", title: "x")), mut: 3, from: owner).1
        early += Self.submit(&machine, .closeCard(card: "a"), mut: 4, from: owner).1
        early += Self.submit(&machine, .closeCard(card: "a"), mut: 5, from: owner).1
        early += Self.submit(&machine, .chat(text: "after"), mut: 6, from: owner).1
        let opening = Self.submit(&machine, .editCard(EditCard(card: "zzz", title: "x")), mut: 1, from: Self.session("s2", client: "other")).1
        #expect(try Self.sent(early, to: owner) == [], "every answer waits for the ack of mut 1 at least")
        #expect(try Self.sent(opening, to: Self.session("s2", client: "other")).count == 1, "another client's goes out at once")

        let settled = machine.written(.success(()), batch: 1)
        let batch = try #require(Self.commits(settled).first)
        #expect(batch.changes.map(\.event.mut) == [2, 4, 6])
        #expect(
            try Self.sent(settled, to: owner) == ["reject 3 not_found", "ack 5 seq 3 noop"],
            "mut 3 and mut 5 go with batch 2, after mut 2's and mut 4's acks, not before it")
        // As the writer publishes it to a client that does not subscribe: one buffer of acks and answers, in order.
        var fanOut = FanOut()
        let direct = BoardPublication.deliver(batch.publication, board: "main", to: &fanOut)
        let text = String(buffer: try #require(direct.first?.acks))
        let order = text.split(separator: "\n").map { line -> String in
            let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]) ?? [:]
            return "\(object["type"] as? String ?? "?") \(object["mut"] as? Int ?? -1)"
        }
        #expect(order == ["ack 2", "reject 3", "ack 4", "ack 5", "ack 6"], "\(text)")
        #expect(text.contains(#""mut":5,"seq":3,"noop":true"#), "the no-op's ack names the seq of mut 4's close: \(text)")
    }

    /// The server's own ops that belong together (a recurring card's next occurrence: the card, its rule, its
    /// checklist) are applied all or none and committed in one batch, even while another batch is in the writer.
    @Test func theServersOpsAreAppliedAllOrNoneAndCommittedTogether() throws {
        var machine = Self.machine()
        let add = Op.addCard(AddCard(card: "r1", column: "todo", title: "Water the plants", ref: "recur:s:2026-12-01"))
        let rule = Op.setRecurrence(card: "r1", recurrence: Recurrence(every: .day))
        let item = Op.addChecklistItem(card: "r1", item: "i1", text: "ferns", done: false, index: nil)
        let (result, actions) = machine.applyAsServer([add, rule, item], now: Self.t0)
        #expect(result == .success(3), "the seq of the last change, to follow until it is durable")
        #expect(Self.commits(actions).map { $0.changes.map(\.event.seq) } == [[1, 2, 3]])
        #expect(machine.head.cards["r1"]?.recur != nil && machine.head.cards["r1"]?.checklist.count == 1)

        // While batch 1 is in the writer, a refused last op leaves the head as it was and commits nothing.
        let again = Op.addCard(AddCard(card: "r2", column: "todo", title: "Again", ref: "recur:s:2026-12-02"))
        let missing = Op.addChecklistItem(card: "nope", item: "i2", text: "x", done: false, index: nil)
        let (refused, nothing) = machine.applyAsServer([again, missing], now: Self.t0)
        #expect((try? refused.get()) == nil)
        if case .failure(let rejection) = refused { #expect(rejection.code == .notFound) }
        #expect(Self.commits(nothing).isEmpty)
        #expect(machine.head.cards["r2"] == nil && machine.head.seq == 3)

        // Those after the writer answers go out as one batch.
        let (_, waiting) = machine.applyAsServer([again, .setRecurrence(card: "r2", recurrence: Recurrence(every: .day))], now: Self.t0)
        #expect(Self.commits(waiting).isEmpty, "batch 1 is still in the writer")
        let answered = machine.written(.success(()), batch: 1)
        #expect(Self.commits(answered).map { $0.changes.map(\.event.seq) } == [[4, 5]])
        #expect(machine.adminChange(at: 3) == .durable)
        #expect(machine.adminChange(at: 5) == .pending, "in the writer")
        _ = machine.written(.success(()), batch: 2)
        #expect(machine.adminChange(at: 5) == .durable)
    }

    /// A card waits only for a card that can be finished, and only a card on the board waits: blocking with an
    /// archived card on either side is refused (`invalid`), by the server, for new ops only (the reducer, which
    /// replays the log, still accepts it).
    @Test func blockingWithAnArchivedCardIsRefused() throws {
        var machine = Self.machine()
        let owner = Self.session("s1")
        for (mut, card) in [(1, "a"), (2, "b"), (3, "c")] {
            _ = Self.submit(&machine, .addCard(AddCard(card: CardID(card), title: card)), mut: UInt64(mut), from: owner)
        }
        _ = Self.submit(&machine, .archiveCard(card: "c"), mut: 4, from: owner)
        let (_, byArchived) = Self.submit(&machine, .blockCard(card: "a", by: "c"), mut: 5, from: owner)
        let (_, archivedWaits) = Self.submit(&machine, .blockCard(card: "c", by: "a"), mut: 6, from: owner)
        var answered: [BoardMachine.Action] = []
        for batch in 1...3 { answered += machine.written(.success(()), batch: UInt64(batch)) }
        #expect(try Self.sent(byArchived + archivedWaits + answered, to: owner).filter { $0.hasPrefix("reject") }
            == ["reject 5 invalid", "reject 6 invalid"])
        let (_, allowed) = Self.submit(&machine, .blockCard(card: "a", by: "b"), mut: 7, from: owner)
        #expect(try Self.sent(allowed, to: owner).filter { $0.hasPrefix("reject") } == [])
        var board = Self.board()
        for card in ["a", "c"] { _ = board.apply(.addCard(AddCard(card: CardID(card), title: card)), context: ApplyContext(actor: "owner", role: .owner, now: Self.t0, seq: board.seq + 1)) }
        _ = board.apply(.archiveCard(card: "c"), context: ApplyContext(actor: "owner", role: .owner, now: Self.t0, seq: board.seq + 1))
        if case .failure(let rejection) = board.apply(.blockCard(card: "a", by: "c"), context: ApplyContext(actor: "owner", role: .owner, now: Self.t0, seq: board.seq + 1)) {
            Issue.record("the reducer refuses what a replayed log may hold: \(rejection)")
        }
    }

    @Test func aClientsAnswersOnABoardKeepTheOrderOfItsOps() throws {
        var machine = Self.machine()
        let owner = Self.session("s1")
        let other = Self.session("s2")
        _ = Self.submit(&machine, .addCard(AddCard(card: "c1", title: "moved")), mut: 1, from: owner)
        let (_, refused) = Self.submit(&machine, .moveCard(card: "nope", column: "done", placement: .bottom), mut: 2, from: owner)
        #expect(try Self.sent(refused, to: owner) == [], "held: mut 1 is not answered yet")
        let (_, elsewhere) = Self.submit(&machine, .moveCard(card: "nope", column: "done", placement: .bottom), mut: 1, from: other)
        #expect(try Self.sent(elsewhere, to: other) == ["reject 1 not_found"], "another client's refusal is not held")
        let answered = machine.written(.success(()), batch: 1)
        #expect(try Self.sent(answered, to: owner) == ["reject 2 not_found"])
        let committedAt = answered.firstIndex { if case .committed = $0 { true } else { false } }
        let sentAt = answered.firstIndex { if case .send = $0 { true } else { false } }
        #expect(committedAt != nil && sentAt != nil && committedAt! < sentAt!, "after the batch it waited for")
        let (_, later) = Self.submit(&machine, .moveCard(card: "nope", column: "done", placement: .bottom), mut: 3, from: owner)
        #expect(try Self.sent(later, to: owner) == ["reject 3 not_found"], "nothing earlier pending: at once")
    }

    @Test func aResendWhileItsChangeIsInTheWriterIsAnsweredOnceItIsDurableAndNeverAppliedAgain() throws {
        var machine = Self.machine()
        let owner = Self.session("s1", client: "c1")
        let reconnected = Self.session("s2", client: "c1")
        _ = Self.submit(&machine, .addCard(AddCard(card: "c1", title: "once")), mut: 7, from: owner)
        let (outcome, resent) = Self.submit(&machine, .addCard(AddCard(card: "c1", title: "once")), mut: 7, from: reconnected)
        #expect(outcome == .answered && resent.isEmpty, "attached to the change in the writer")
        #expect(machine.head.seq == 1)
        let answered = machine.written(.success(()), batch: 1)
        #expect(try Self.sent(answered, to: reconnected) == ["ack 7 seq 1"])
        #expect(Self.commits(answered).isEmpty)
        // Later still: the mark answers it from the store's record, with the original seq.
        var (step, _) = machine.submit(.op(.chat(text: "x")), mut: 7, from: reconnected, nowMs: 0, now: Self.t0)
        guard case .read(let submission, .committed(_, _, 7)) = step else {
            Issue.record("a mut at or below the mark is looked up, got \(step)")
            return
        }
        let stored = machine.log.entry(1).map {
            StoredEvent(board: "main", seq: $0.seq, at: Self.t0, actor: "owner", clientID: "c1", mut: 7, op: .chat(text: "x"), activity: $0.activity)
        }
        let actions: [BoardMachine.Action]
        (step, actions) = machine.resume(submission, with: .committed(stored), now: Self.t0)
        #expect(try Self.sent(actions, to: reconnected) == ["ack 7 seq 1"])
        #expect(machine.head.seq == 1)
    }

    /// The store's marks are read once per op until the client's first commit here; a mark of 0 is a mark (mut 0 was
    /// committed), so a resend of mut 0 is looked up, never applied again.
    @Test func aStoredMarkOfZeroIsLookedUpNotAppliedAgain() throws {
        var machine = Self.machine()
        let owner = Self.session("s1", client: "c1")
        var (step, _) = machine.submit(.op(.chat(text: "again")), mut: 0, from: owner, nowMs: 0, now: Self.t0)
        guard case .read(let first, .lastMutation) = step else {
            Issue.record("the marks are read first, got \(step)")
            return
        }
        (step, _) = machine.resume(first, with: .lastMutation(0), now: Self.t0)
        guard case .read(_, .committed(_, _, 0)) = step else {
            Issue.record("mut 0 at or below the stored mark 0 is looked up, got \(step)")
            return
        }
        #expect(machine.head.seq == 0)
    }

    @Test func twoCopiesOfAMutationReadingTheStoreAreAppliedOnce() throws {
        var machine = Self.machine()
        let first = Self.session("s1", client: "c1")
        let second = Self.session("s2", client: "c1")
        let (stepA, _) = machine.submit(.op(.chat(text: "hi")), mut: 1, from: first, nowMs: 0, now: Self.t0)
        let (stepB, _) = machine.submit(.op(.chat(text: "hi")), mut: 1, from: second, nowMs: 0, now: Self.t0)
        guard case .read(let a, .lastMutation) = stepA, case .read(let b, .lastMutation) = stepB else {
            Issue.record("a new client's marks are read first")
            return
        }
        let (doneA, actionsA) = machine.resume(a, with: .lastMutation(nil), now: Self.t0)
        #expect(Self.commits(actionsA).count == 1)
        let (doneB, actionsB) = machine.resume(b, with: .lastMutation(nil), now: Self.t0)
        guard case .done(.answered) = doneA, case .done(.answered) = doneB else {
            Issue.record("both answered")
            return
        }
        #expect(actionsB.isEmpty, "the second copy attached to the first")
        #expect(machine.head.seq == 1)
        let answered = machine.written(.success(()), batch: 1)
        #expect(try Self.sent(answered, to: second) == ["ack 1 seq 1"])
    }

    @Test func aCommitMeanwhileAnswersAnOpThatWasReadingTheStore() throws {
        var machine = Self.machine()
        let first = Self.session("s1", client: "c1")
        let second = Self.session("s2", client: "c1")
        _ = Self.submit(&machine, .chat(text: "hi"), mut: 1, from: first)
        // The mark is known now (0 committed); mut 1 is pending, so a resend attaches. A resend of mut 1 after the
        // commit looks the mutation up in the store; before the answer comes, nothing else may apply it.
        _ = machine.written(.success(()), batch: 1)
        let (step, _) = machine.submit(.op(.chat(text: "hi")), mut: 1, from: second, nowMs: 0, now: Self.t0)
        guard case .read(let submission, .committed) = step else {
            Issue.record("looked up, got \(step)")
            return
        }
        // The store cannot be read: the op is refused, retryable, and nothing is applied.
        let (_, failed) = machine.resume(submission, with: .failed(StoreError(.busy, "locked")), now: Self.t0)
        #expect(try Self.sent(failed, to: second) == ["reject 1 storage_busy"])
        #expect(machine.head.seq == 1)
    }

    @Test func rateLimitingRejectsThenClosesAfterTheRunLastsRateCloseMs() throws {
        var machine = Self.machine {
            $0.rateOpsPerS = 1
            $0.rateBurst = 1
            $0.rateCloseMs = 3_000
        }
        let owner = Self.session("s1")
        #expect(Self.submit(&machine, .chat(text: "1"), mut: 1, from: owner, nowMs: 0).0 == .answered)
        let (limited, actions) = Self.submit(&machine, .chat(text: "2"), mut: 2, from: owner, nowMs: 10)
        guard case .rateLimited(let retry, let highest) = limited else {
            Issue.record("over the rate: \(limited)")
            return
        }
        #expect(retry == 990 && highest == 1)
        #expect(try Self.sent(actions, to: owner) == ["reject 2 rate_limited"])
        var outcome = limited
        var now: Int64 = 10
        var accepted = 0
        while now < 3_400, outcome != .closeForRate {
            now += 300
            outcome = Self.submit(&machine, .chat(text: "n"), mut: UInt64(now), from: owner, nowMs: now).0
            // About one op a second finds a token (the rate); the run goes on across them.
            if outcome == .answered { accepted += 1 }
        }
        #expect(accepted >= 2, "the bucket refills at its rate meanwhile")
        #expect(now >= 3_010, "not before rate_close_ms of continuous limiting (closed at \(now) ms)")
        #expect(outcome == .closeForRate, "a run of rate limiting longer than rate_close_ms closes the connection")
    }

    @Test func anotherNodesCommitsAreFannedOutAndAnOpAppliedMeanwhileIsWrittenAfterThem() throws {
        var machine = Self.machine()
        let owner = Self.session("s1")
        let actions = machine.noticed(head: 2)
        #expect(Self.reads(actions) == [1])
        // While the read is under way an op arrives: applied on the old head, and held.
        let (_, applied) = Self.submit(&machine, .chat(text: "mine"), mut: 1, from: owner)
        #expect(Self.commits(applied).isEmpty)
        let events = Self.elsewhere(after: Self.board(), [("ann", .chat(text: "a")), ("ann", .chat(text: "b"))])
        let caught = machine.caughtUp(.success(events))
        #expect(machine.committed.seq == 2)
        let fanned = caught.compactMap { if case .fanOut(let lines, _) = $0 { lines } else { nil } }
        #expect(fanned.count == 1 && fanned.first.map { String(buffer: $0).split(separator: "\n").count } == 2)
        let commit = try #require(Self.commits(caught).first)
        #expect(commit.changes.map(\.event.seq) == [3], "the local op follows the other node's changes")
        #expect(machine.noticed(head: 2).isEmpty, "caught up already")
    }

    /// A read of other nodes' changes that fails (the database still coming back after an outage) is tried again
    /// after the retry delay: a quiet board would otherwise stay behind until the next change anywhere.
    @Test func aFailedCatchUpIsReadAgainAfterTheRetryDelay() throws {
        var machine = Self.machine()
        #expect(Self.reads(machine.noticed(head: nil)) == [1])
        let failed = machine.caughtUp(.failure(StoreError(.io, "no connection within 5.0 seconds")))
        #expect(failed.contains { if case .retryResolve(500) = $0 { true } else { false } })
        #expect(Self.reads(machine.resolve()) == [1])
        let events = Self.elsewhere(after: Self.board(), [("ann", .chat(text: "while this node could not read"))])
        _ = machine.caughtUp(.success(events))
        #expect(machine.committed.seq == 1)
        #expect(machine.resolve().isEmpty, "caught up: nothing left to read")
    }

    @Test func aMovedHeadIsCaughtUpAndTheBatchWrittenAgainUnderNewSeqs() throws {
        var machine = Self.machine()
        let owner = Self.session("s1")
        _ = Self.submit(&machine, .chat(text: "mine"), mut: 1, from: owner)
        let moved = machine.written(.failure(.headMoved("main", to: 1, batchStart: 1)), batch: 1)
        #expect(Self.reads(moved) == [1])
        let caught = machine.caughtUp(.success(Self.elsewhere(after: Self.board(), [("ann", .chat(text: "first"))])))
        let commit = try #require(Self.commits(caught).first)
        #expect(commit.number == 2 && commit.changes.map(\.event.seq) == [2])
        #expect(commit.publication.entries.first?.origin == owner, "the origin still gets its ack from the writer")
    }

    /// A mutation id the client had committed on another board is found only when the store refuses the batch: that
    /// change is refused as `stale_mut`, and the other changes of the batch, another client's too, are written again.
    @Test func aMutationReusedFromAnotherBoardIsRefusedAloneAndTheRestOfItsBatchIsWritten() throws {
        var machine = Self.machine()
        let owner = Self.session("s1")
        let ann = Self.session("s2", user: "ann")
        _ = Self.submit(&machine, .chat(text: "first"), mut: 1, from: owner)
        _ = Self.submit(&machine, .chat(text: "ann's"), mut: 7, from: ann)
        _ = Self.submit(&machine, .chat(text: "reused"), mut: 5, from: owner)
        let second = machine.written(.success(()), batch: 1)
        #expect(Self.commits(second).first?.changes.map(\.event.mut) == [7, 5])
        let refused = machine.written(
            .failure(.duplicateMutation(actor: "owner", clientID: "client-s1", mut: 5)), batch: 2)
        let reused = refused.compactMap { if case .rejectReused(let session, let mut) = $0 { "\(session.id) \(mut)" } else { nil } }
        #expect(reused == ["s1 5"])
        #expect(try Self.sent(refused, to: ann) == [], "ann's change is not refused for another client's fault")
        let third = try #require(Self.commits(refused).first)
        #expect(third.number == 3 && third.changes.map(\.event.mut) == [7] && third.changes.map(\.event.seq) == [2])
        #expect(!refused.contains { if case .commitFailed = $0 { true } else { false } }, "the store did not fail")
        _ = machine.written(.success(()), batch: 3)
        #expect(machine.committed.seq == 2 && machine.isDrained)
    }

    @Test func aLostCommitRefusesNewOpsUntilTheStoreSaysItLandedThenAcknowledgesIt() throws {
        var machine = Self.machine()
        let owner = Self.session("s1", client: "c1")
        let other = Self.session("s2", client: "c2")
        let (_, first) = Self.submit(&machine, .chat(text: "maybe"), mut: 1, from: owner)
        let commit = try #require(Self.commits(first).first)
        let lost = StoreError(.io, "connection reset").withOutcomeUnknown()
        let unknown = machine.written(.failure(lost), batch: 1)
        #expect(Self.reads(unknown) == [1])
        let (_, refused) = Self.submit(&machine, .chat(text: "meanwhile"), mut: 1, from: other)
        #expect(try Self.sent(refused, to: other) == ["reject 1 storage_busy"])
        // The database does not answer yet: read again after the retry delay (a timer, not a sleep).
        let retry = machine.caughtUp(.failure(StoreError(.io, "down")))
        #expect(retry.contains { if case .retryResolve(500) = $0 { true } else { false } })
        #expect(Self.reads(machine.resolve()) == [1])
        // It landed: acknowledged as if the commit had answered, by the board (the writer never published it).
        let landed = machine.caughtUp(.success(commit.changes.map(\.event)))
        #expect(landed.contains { if case .deliver(let batch) = $0 { batch.number == 1 } else { false } })
        #expect(machine.committed.seq == 1)
        let (_, after) = Self.submit(&machine, .chat(text: "after"), mut: 2, from: other)
        #expect(Self.commits(after).first?.changes.map(\.event.seq) == [2], "served again")
    }

    @Test func aBatchThatRemovesAMemberEndsTheirSubscriptionsAndAccess() throws {
        var machine = Self.machine()
        let owner = Self.session("s1")
        let ann = Self.session("s2", user: "ann")
        let (_, actions) = Self.submit(&machine, .removeMember(user: "ann"), mut: 1, from: owner)
        let commit = try #require(Self.commits(actions).first)
        #expect(commit.publication.removing == ["ann"], "the publication ends ann's subscriptions before the deltas")
        // Access is checked on the durable board: until the removal commits, ann is still a member there, but
        // not on head, so her op is refused as for a missing board.
        let (_, refused) = Self.submit(&machine, .chat(text: "still here?"), mut: 1, from: ann)
        #expect(try Self.sent(refused, to: ann) == ["reject 1 not_found"])
        let settled = machine.written(.success(()), batch: 1)
        #expect(settled.contains { if case .committed(_, _, _, let left) = $0 { left == ["ann"] } else { false } })
        #expect(machine.committed.members["ann"] == nil)
    }

    @Test func aFinalStopWaitsForTheBatchInTheWriterThenRefusesOps() throws {
        var machine = Self.machine()
        let owner = Self.session("s1")
        _ = Self.submit(&machine, .chat(text: "last"), mut: 1, from: owner)
        _ = machine.stop(final: true)
        #expect(!machine.isFinished, "the batch in the writer is still answered")
        _ = machine.written(.success(()), batch: 1)
        #expect(machine.isFinished && machine.committed.seq == 1)
        let (_, refused) = Self.submit(&machine, .chat(text: "too late"), mut: 2, from: owner)
        #expect(try Self.sent(refused, to: owner) == ["reject 2 storage_busy"])
        #expect(machine.head.seq == 1)
    }

    @Test func aStopWhileTheOutcomeOfACommitIsUnknownLeavesItUnansweredAndEnds() throws {
        var machine = Self.machine()
        let owner = Self.session("s1")
        _ = Self.submit(&machine, .chat(text: "maybe"), mut: 1, from: owner)
        _ = machine.written(.failure(StoreError(.io, "reset").withOutcomeUnknown()), batch: 1)
        _ = machine.stop(final: true)
        let abandoned = machine.caughtUp(.failure(StoreError(.io, "down")))
        #expect(try Self.sent(abandoned, to: owner) == [], "never rejected: the client re-sends it elsewhere")
        #expect(machine.isFinished && machine.head.seq == 0)
    }
}
