import BoardCore
import BoardWire
import NIOCore

extension Session {
    /// Handles one request of an authenticated session.
    mutating func handle(_ message: ClientMessage, as ref: SessionRef) async {
        switch message {
        case .listBoards(let request):
            var summaries: [ServerMessage.BoardSummary] = []
            for board in await context.registry.all() {
                if let summary = await board.summary(for: ref.user) { summaries.append(summary) }
            }
            summaries.sort { $0.board < $1.board }
            outbox.send(Lines.line(.boards(ServerMessage.BoardList(req: request.req, boards: summaries))))
        case .createBoard(let request):
            await createBoard(request, as: ref)
        case .subscribe(let request):
            guard let board = await member(request.board, ref, req: request.req) else { return }
            await board.subscribe(
                ref, since: request.since, epoch: request.epoch, present: request.presence ?? true, req: request.req)
            subscriptions.insert(request.board)
        case .unsubscribe(let request):
            guard let board = await member(request.board, ref, req: request.req) else { return }
            await board.unsubscribe(ref.id)
            subscriptions.remove(request.board)
            outbox.send(Lines.line(.ok(ServerMessage.Ok(req: request.req, board: request.board))))
        case .op(let request):
            await submit(request, as: ref)
        case .fetch(let request):
            guard let board = await member(request.board, ref, req: request.req) else { return }
            await board.fetch(ref, from: request.from, to: request.to, req: request.req)
        case .presence(let request):
            guard let board = await member(request.board, ref) else { return }
            // Presence is ephemeral: past `presence_rate_per_s`, intermediate drag positions are dropped (the next
            // one supersedes them). A change of state (start or end of a drag, editing, viewing) always goes out.
            let now = context.clock.now().milliseconds
            let rate = context.configuration.limits.presenceRatePerS
            var bucket = presenceBucket ?? TokenBucket(rate: rate, burst: rate, nowMs: now)
            let allowed = bucket.take(nowMs: now) == nil
            presenceBucket = bucket
            let entry = ServerMessage.PresenceEntry(
                session: ref.id, user: ref.user, state: request.state, card: request.card, column: request.column,
                index: request.index, away: request.away)
            let droppable = !allowed && request.state == .dragging && lastPresence == .dragging
            guard await board.updatePresence(ref, entry, drop: droppable) else {
                outbox.send(
                    Lines.error(
                        WireError(
                            .badRequest, "presence on board \(request.board) needs a subscription with presence",
                            board: request.board)))
                return
            }
            lastPresence = request.state
        case .history(let request):
            guard let board = await member(request.board, ref, req: request.req) else { return }
            await board.history(ref, card: request.card, before: request.before, limit: request.limit ?? 50, req: request.req)
        case .hello, .ping, .pong, .bye:
            break
        }
    }

    /// `board.create`: any account but a bot account may create a board.
    private func createBoard(_ request: ClientMessage.CreateBoard, as ref: SessionRef) async {
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

    /// An `op`: the rate verdict first (cheap, before any board or store is touched), then the board, which answers
    /// with exactly one `ack` or `reject` — `not_found` when it does not exist or the user is not a member.
    private mutating func submit(_ request: ClientMessage.Mutation, as ref: SessionRef) async {
        let now = context.clock.now().milliseconds
        let wait = await context.limiter.take(ref.user, nowMs: now)
        if wait != nil, rateRun.limited(nowMs: now) {
            machine.closed()
            let seconds = context.configuration.limits.rateCloseMs / 1000
            outbox.sendAndClose(Lines.error(WireError(.tooManyErrors, "rate limited without a break for \(seconds) s")))
            return
        }
        guard let board = await context.registry.board(request.board), await board.isMember(ref.user) else {
            let reject = ServerMessage.Reject(
                board: request.board, mut: request.mut, code: .rejected(.notFound), message: "no board \(request.board)")
            outbox.send(Lines.line(.reject(reject)))
            return
        }
        touched.insert(request.board)
        // The board checks exactly-once first, then the rate verdict (see BoardActor.submit).
        await board.submit(request.op, mut: request.mut, from: ref, rateLimited: wait)
    }

    /// The board's actor when it exists and the user is a member; otherwise answers `not_found` (the same for both).
    private func member(_ id: BoardID, _ ref: SessionRef, req: RequestID? = nil) async -> BoardActor? {
        if let board = await context.registry.board(id), await board.isMember(ref.user) { return board }
        outbox.send(Lines.error(WireError(.notFound, "no board \(id)", req: req, board: id)))
        return nil
    }
}
