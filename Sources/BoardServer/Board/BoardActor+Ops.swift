import BoardCore
import BoardStore
import BoardWire
import NIOCore

extension BoardActor {
    typealias SubmitOutcome = BoardMachine.SubmitOutcome

    /// Applies one op from a session, exactly once per (user, client id, mut): the machine checks and applies it
    /// (``BoardMachine/submit(_:mut:from:nowMs:now:)``); this reads the store when it asks (other ops go on
    /// meanwhile). Replies go to the session's outbox: `reject` at once, `ack` with `noop` at once, otherwise `ack`
    /// and the delta once the change is durable.
    @discardableResult
    func submit(_ request: OpRequest, mut: UInt64, from session: SessionRef) async -> SubmitOutcome {
        settleIfPublished()
        if configuration.live.generation != liveGeneration { takeLiveSettings() }
        var (step, actions) = machine.submit(
            request, mut: mut, from: session, nowMs: clock.monotonicMs(), now: clock.now())
        while true {
            perform(now: actions)
            switch step {
            case .done(let outcome):
                return outcome
            case .read(let submission, let read):
                let answer = await self.read(read)
                settleIfPublished()
                (step, actions) = machine.resume(submission, with: answer, now: clock.now())
            }
        }
    }

    /// Carries out a read the machine asked for.
    private func read(_ read: BoardMachine.Read) async -> BoardMachine.Answer {
        do throws(StoreError) {
            switch read {
            case .lastMutation(let user, let client):
                return .lastMutation(try await store.lastMutation(user: user, clientID: client.rawValue, board: id))
            case .committed(let user, let client, let mut):
                return .committed(try await store.committed(user: user, clientID: client.rawValue, mut: mut))
            case .change(let seq):
                return .change(try await store.events(id, from: seq, to: seq, limit: 1).first)
            }
        } catch {
            configuration.metrics.readFailed(error)
            return .failed(error)
        }
    }

    /// A session ended: forget its run of rate limiting and end its subscription, if any.
    func sessionEnded(_ session: SessionID) {
        machine.sessionEnded(session)
        unsubscribe(session)
    }

    /// Applies the server's own ops all or none (see ``BoardMachine/applyAsServer(_:now:)``): the seq of the last
    /// change, to follow with `adminChange(at:)`, or the refusal.
    func applyAsServer(_ ops: [Op]) -> Result<UInt64?, Rejection> {
        let (result, actions) = machine.applyAsServer(ops, now: clock.now())
        perform(now: actions)
        return result
    }

    /// Where the server's own change at `seq` stands (see ``BoardMachine/adminChange(at:)``).
    func adminChange(at first: UInt64) -> BoardMachine.AdminChange {
        settleIfPublished()
        return machine.adminChange(at: first)
    }

    /// Rejects `mut` as `stale_mut`, naming the board it was applied on (read from the store; "another board" when
    /// the store cannot say).
    func rejectReused(_ session: SessionRef, mut: UInt64) async {
        let board = try? await store.committed(user: session.user, clientID: session.clientID.rawValue, mut: mut)?.board
        configuration.metrics.rejected(.staleMut)
        session.outbox.send(
            ByteBuffer(
                bytes: LineWriter.rejectLine(
                    board: id, mut: mut, code: .staleMut,
                    message: "mutation \(mut) of this client was applied on \(board.map { "board \($0)" } ?? "another board"); "
                        + "mutation ids are per client, across boards", retryAfterMs: nil)))
    }

    /// Ends the subscription of every session whose user is no longer a member of `committed` (the publication
    /// has told each `not_found` and taken it out of the fan-out); the others see `presence.left` for those present.
    func endSubscriptionsOfNonMembers() {
        for (session, ref) in subscribers where committed.members[ref.user] == nil {
            subscribers[session] = nil
            publication.withFanOut { $0.remove(session) }
            presenceUpdated[session] = nil
            if presence.removeValue(forKey: session) != nil { presenceLeft(session, user: ref.user) }
        }
    }
}

extension BoardActor {
    /// The operator changed the op rate while the server runs: the machine rates users anew from the next op.
    func takeLiveSettings() {
        liveGeneration = configuration.live.generation
        let limits = configuration.currentLimits
        machine.setRate(opsPerS: limits.rateOpsPerS, burst: limits.rateBurst)
    }
}
