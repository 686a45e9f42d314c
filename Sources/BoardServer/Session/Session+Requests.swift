import BoardCore
import BoardStore
import BoardWire
import NIOCore

extension Session {
    /// What a rare request changed in the session.
    enum RequestEffect: Sendable {
        case none
        case subscribed(BoardID)
        case unsubscribed(BoardID)
    }

    /// Handles one request of an authenticated session: `op` and `presence` here, on the session's task; the rare
    /// requests in a task of their own (`inOwnTask`).
    ///
    /// `action` is the machine's `.handle`: each path unpacks the message itself, so that this frame, which stays
    /// allocated as long as the connection (see `inOwnTask`), holds none of the messages' payloads.
    @inline(never)
    func handle(_ action: SessionMachine.Action, as ref: SessionRef) async {
        guard case .handle(let message) = action else { return }
        switch message {
        case .op:
            await submit(action, as: ref)
        case .presence:
            await presence(action, as: ref)
        case .listBoards, .createBoard, .archiveBoard, .subscribe, .unsubscribe, .fetch, .history, .addHook, .listHooks,
            .removeHook, .testHook, .inbox, .readInbox, .notify:
            await request(action, as: ref)
        case .hello, .ping, .pong, .bye:
            break
        }
    }

    /// A rare request, in a task of its own; what it changed in the session is applied here.
    @inline(never)
    private func request(_ action: SessionMachine.Action, as ref: SessionRef) async {
        guard case .handle(let message) = action else { return }
        let context = self.context
        let outbox = self.outbox
        switch await Self.inOwnTask({ await Self.request(message, as: ref, context: context, outbox: outbox) }) {
        case .none:
            break
        case .subscribed(let board):
            subscriptions.insert(board)
        case .unsubscribed(let board):
            subscriptions.remove(board)
        }
    }

    /// The rare requests: listing, creating, subscribing to and reading boards.
    @inline(never)
    private static func request(
        _ message: ClientMessage, as ref: SessionRef, context: SessionContext, outbox: Outbox
    ) async -> RequestEffect {
        switch message {
        case .listBoards(let request):
            var summaries: [ServerMessage.BoardSummary] = []
            for board in await context.registry.everyBoard() {
                if let summary = await board.summary(for: ref.user) { summaries.append(summary) }
            }
            summaries.sort { $0.board < $1.board }
            outbox.send(Lines.line(.boards(ServerMessage.BoardList(req: request.req, boards: summaries))))
        case .createBoard(let request):
            await createBoard(request, as: ref, context: context, outbox: outbox)
        case .archiveBoard(let request):
            await archiveBoard(request, as: ref, context: context, outbox: outbox)
        case .subscribe(let request):
            guard let board = await member(request.board, ref, req: request.req, context: context, outbox: outbox) else {
                return .none
            }
            await board.subscribe(
                ref, since: request.since, epoch: request.epoch, present: request.presence ?? true, req: request.req)
            return .subscribed(request.board)
        case .unsubscribe(let request):
            guard let board = await member(request.board, ref, req: request.req, context: context, outbox: outbox) else {
                return .none
            }
            await board.unsubscribe(ref.id)
            outbox.send(Lines.line(.ok(ServerMessage.Ok(req: request.req, board: request.board))))
            return .unsubscribed(request.board)
        case .fetch(let request):
            guard let board = await member(request.board, ref, req: request.req, context: context, outbox: outbox) else {
                return .none
            }
            await board.fetch(ref, from: request.from, to: request.to, req: request.req)
        case .history(let request):
            guard let board = await member(request.board, ref, req: request.req, context: context, outbox: outbox) else {
                return .none
            }
            await board.history(ref, card: request.card, before: request.before, limit: request.limit ?? ClientMessage.History.defaultLimit, req: request.req)
        case .addHook, .listHooks, .removeHook, .testHook:
            await hookRequest(message, as: ref, context: context, outbox: outbox)
        case .inbox, .readInbox, .notify:
            await inboxRequest(message, as: ref, context: context, outbox: outbox)
        case .op, .presence, .hello, .ping, .pong, .bye:
            break
        }
        return .none
    }

    /// `presence`: ephemeral; past `presence_rate_per_s`, intermediate drag positions are dropped (the next one
    /// supersedes them; the board sends the newest once the rate allows). A change of state (start or end of a drag,
    /// editing, viewing) always goes out.
    @inline(never)
    private func presence(_ action: SessionMachine.Action, as ref: SessionRef) async {
        guard case .handle(.presence(let request)) = action else { return }
        guard let board = await board(request.board) else {
            outbox.send(Lines.error(WireError(.notFound, "no board \(request.board)", board: request.board)))
            return
        }
        let now = context.clock.monotonicMs()
        let rate = context.configuration.limits.presenceRatePerS
        let bucket = presenceBucket ?? PresenceBucket(rate: rate, nowMs: now)
        presenceBucket = bucket
        let wait = bucket.take(nowMs: now)
        let entry = ServerMessage.PresenceEntry(
            session: ref.id, user: ref.user, state: request.state, card: request.card, column: request.column,
            index: request.index, away: request.away, awayNote: request.away == true ? request.awayNote : nil)
        let droppable = wait != nil && request.state == .dragging && lastPresence == .dragging
        switch await board.updatePresence(ref, entry, held: droppable ? wait.map { ($0, bucket) } : nil) {
        case .updated:
            lastPresence = request.state
        case .notFound:
            boards[request.board] = nil
            outbox.send(Lines.error(WireError(.notFound, "no board \(request.board)", board: request.board)))
        case .notPresent:
            outbox.send(
                Lines.error(
                    WireError(
                        .badRequest, "presence on board \(request.board) needs a subscription with presence",
                        board: request.board)))
        }
    }

    /// `board.create`: any account but a bot account may create a board.
    private static func createBoard(
        _ request: ClientMessage.CreateBoard, as ref: SessionRef, context: SessionContext, outbox: Outbox
    ) async {
        guard ref.account != .bot else {
            outbox.send(
                Lines.error(WireError(.forbidden, "bot accounts cannot create boards", req: request.req, board: request.board)))
            return
        }
        do {
            if try await context.registry.create(request.board, name: request.name, owner: ref.user) != nil {
                outbox.send(Lines.line(.ok(ServerMessage.Ok(req: request.req, board: request.board))))
            } else {
                outbox.send(Lines.error(WireError(.badRequest, "board id \(request.board) is taken", req: request.req, board: request.board)))
            }
        } catch {
            outbox.send(Lines.error(WireError(.storageBusy, "the board could not be stored", req: request.req, board: request.board)))
        }
    }

    /// `board.archive`: for the board's owner only (a non-member gets `not_found`, as for a missing board; another
    /// member `forbidden`). Queued in the admin queue as `corkd board archive` queues it, so the node that applies the
    /// queue archives it and every node stops serving it; answered `ok` once applied, at most `archiveWait` later.
    private static func archiveBoard(
        _ request: ClientMessage.ArchiveBoard, as ref: SessionRef, context: SessionContext, outbox: Outbox
    ) async {
        let (board, req) = (request.board, request.req)
        guard await owned(board, by: ref, req: req, refusal: "only the board's owner archives it", context: context, outbox: outbox) != nil
        else { return }
        let admin = context.store
        do throws(StoreError) {
            let ids = try await admin.enqueue([.archiveBoard(board: board)], now: context.clock.now())
            let deadline = ContinuousClock.now + archiveWait
            while ContinuousClock.now < deadline {
                switch try await admin.outcomes(ids)[ids[0]] ?? .pending {
                case .done:
                    outbox.send(Lines.line(.ok(ServerMessage.Ok(req: req, board: board))))
                    return
                case .failed(let failure):
                    let code: ErrorCode = failure.code == AdminFailure.Code.notFound ? .notFound : .badRequest
                    outbox.send(Lines.error(WireError(code, failure.message, req: req, board: board)))
                    return
                case .pending:
                    try? await Task.sleep(for: context.configuration.adminPollInterval)
                }
            }
            outbox.send(
                Lines.error(
                    WireError(
                        .storageBusy, "the archive of \(board) is queued but not applied yet; it will be", req: req,
                        board: board)))
        } catch {
            outbox.send(Lines.error(WireError(.storageBusy, "the archive could not be queued: \(error)", req: req, board: board)))
        }
    }

    /// How long `board.archive` waits for the admin queue to apply it.
    static let archiveWait: Duration = .seconds(30)

    /// An `op`: straight to the board's actor (kept after the first op), which checks membership, the rate and
    /// exactly-once in its own isolation and answers with exactly one `ack` or `reject` — `not_found` when the board
    /// does not exist or the user is not a member. One actor hop per op; the registry only on a board's first op.
    @inline(never)
    private func submit(_ action: SessionMachine.Action, as ref: SessionRef) async {
        guard case .handle(.op(let request)) = action else { return }
        let nowMs = context.clock.monotonicMs()
        if let wait = emptyBuckets.refusal(request.board, mut: request.mut, nowMs: nowMs) {
            outbox.send(ByteBuffer(bytes: LineWriter.rejectLine(
                board: request.board, mut: request.mut, code: .rateLimited,
                message: "over \(context.configuration.currentLimits.rateOpsPerS) ops/s; retry in \(wait) ms", retryAfterMs: wait)))
            readPauseMs = min(Int64(clamping: wait), emptyBuckets.maxWindowMs)
            return
        }
        for _ in 0..<2 {
            guard let board = await board(request.board) else { break }
            touched.insert(request.board)
            switch await board.submit(request.op, mut: request.mut, from: ref) {
            case .answered:
                emptyBuckets.forget(request.board)
                return
            case .rateLimited(let wait, let highestMut):
                emptyBuckets.limited(request.board, nowMs: nowMs, retryAfterMs: wait, highestMut: highestMut)
                readPauseMs = min(Int64(clamping: wait), emptyBuckets.maxWindowMs)
                return
            case .closeForRate:
                machine.closed()
                let seconds = context.configuration.limits.rateCloseMs / 1000
                await outbox.sendFinal(Lines.error(WireError(.tooManyErrors, "rate limited without a break for \(seconds) s")))
                return
            case .closed:
                // Archived since this session first used it: look it up again (it may be served anew).
                boards[request.board] = nil
            }
        }
        let reject = ServerMessage.Reject(
            board: request.board, mut: request.mut, code: .rejected(.notFound), message: "no board \(request.board)")
        outbox.send(Lines.line(.reject(reject)))
    }

    /// The actor of a board this session uses, from its own table or else the registry (then kept).
    private func board(_ id: BoardID) async -> BoardActor? {
        if let board = boards[id] { return board }
        guard let board = await context.registry.board(id) else { return nil }
        boards[id] = board
        return board
    }

    /// The board's seq when the user is one of its owners. Otherwise answers `not_found` to a non-member (as for a
    /// missing board) and `forbidden` with `refusal` to another member, and returns nil.
    static func owned(
        _ board: BoardID, by ref: SessionRef, req: RequestID?, refusal: String, context: SessionContext, outbox: Outbox
    ) async -> UInt64? {
        guard let actor = await context.registry.board(board), let access = await actor.roleAndSeq(of: ref.user) else {
            outbox.send(Lines.error(WireError(.notFound, "no board \(board)", req: req, board: board)))
            return nil
        }
        guard access.role == .owner else {
            outbox.send(Lines.error(WireError(.forbidden, refusal, req: req, board: board)))
            return nil
        }
        return access.seq
    }

    /// The board's actor when it exists and the user is a member; otherwise answers `not_found` (the same for both).
    static func member(
        _ id: BoardID, _ ref: SessionRef, req: RequestID? = nil, context: SessionContext, outbox: Outbox
    ) async -> BoardActor? {
        if let board = await context.registry.board(id), await board.isMember(ref.user) { return board }
        outbox.send(Lines.error(WireError(.notFound, "no board \(id)", req: req, board: id)))
        return nil
    }
}
