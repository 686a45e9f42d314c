import BoardCore
import BoardWire
import Foundation

extension BoardClient {
    /// Emits a board update when what is shown changed, saying what changed.
    func publishBoard(cause: BoardUpdate.Cause, changes: BoardChanges, changedByOthers: Set<CardID> = []) {
        guard let board = replica?.view,
            let update = publisher.publish(board, cause: cause, changes: changes, changedByOthers: changedByOthers)
        else { return }
        eventSink.yield(.board(update))
    }

    /// Sends queued ops while connected and the pacing bucket allows; the timer loop calls again when it refills.
    func flushOps() {
        guard welcome != nil, output != nil, !unsent.isEmpty else { return }
        let now = elapsed.seconds
        if let holdUntil, now < holdUntil { return }
        holdUntil = nil
        let byMut = Dictionary(pendingOps.map { ($0.mut, $0) }, uniquingKeysWith: { a, _ in a })
        while let mut = unsent.first {
            guard let op = byMut[mut] else {
                unsent.removeFirst()
                continue
            }
            // Not on disk yet: it (and the ops after it) waits for the journal writer.
            if heldForJournal[mut] != nil { return }
            if configuration.paceOps, !bucket.take(now: now) {
                armTimer()
                return
            }
            unsent.removeFirst()
            send(op.message)
        }
    }

    /// When the next paced send may happen (seconds on ``elapsed``), if ops are waiting.
    /// Nil when nothing could be sent then anyway: offline, or the next op is waiting for the journal (the writer
    /// flushes when it is done), so the timer never spins on a deadline that has passed.
    var nextFlush: Double? {
        guard let first = unsent.first, welcome != nil, output != nil, heldForJournal[first] == nil else { return nil }
        let now = elapsed.seconds
        if let holdUntil, holdUntil > now { return holdUntil }
        return now + bucket.wait(now: now)
    }

    // MARK: - Timers

    /// Wakes the timer loop: a new deadline, or paced ops waiting. It then sleeps until the earliest deadline.
    func armTimer() {
        timerWake?.resume()
        timerWake = nil
    }

    /// The timer loop: one timer, set to the earliest deadline (a waiter's timeout, or when the pacing bucket lets
    /// the next op go). It fails waiters past their deadline and sends paced ops. With nothing to time it waits for
    /// ``armTimer()``, so an idle client uses no CPU; it never polls.
    func runTimers() async {
        while !isStopped {
            guard let deadline = nextDeadline else {
                await withCheckedContinuation { timerWake = $0 }
                continue
            }
            if deadline > .now {
                // Sleep until the deadline, or until armTimer() says an earlier one may have come.
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { [weak self] in
                        guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return }
                        await self?.armTimer()
                    }
                    await withCheckedContinuation { timerWake = $0 }
                    group.cancelAll()
                }
            }
            fireTimers()
        }
    }

    /// The earliest time something must happen: a waiter's deadline, or the next paced send.
    var nextDeadline: ContinuousClock.Instant? {
        var earliest: ContinuousClock.Instant?
        func consider(_ instant: ContinuousClock.Instant) {
            if earliest.map({ instant < $0 }) ?? true { earliest = instant }
        }
        for outstanding in requests.values { consider(outstanding.waiter.deadline) }
        for waiters in opWaiters.values { for waiter in waiters { consider(waiter.deadline) } }
        for waiter in readyWaiters { consider(waiter.deadline) }
        if let flush = nextFlush { consider(started + .nanoseconds(Int64(flush * 1e9))) }
        return earliest
    }

    func fireTimers() {
        let now = ContinuousClock.now
        for (req, outstanding) in requests where outstanding.waiter.deadline <= now {
            requests[req] = nil
            outstanding.waiter.resolve(.failure(outstanding.waiter.timeoutError))
        }
        for (mut, waiters) in opWaiters {
            let (late, onTime) = (waiters.filter { $0.deadline <= now }, waiters.filter { $0.deadline > now })
            for waiter in late { waiter.resolve(.failure(waiter.timeoutError)) }
            opWaiters[mut] = onTime.isEmpty ? nil : onTime
        }
        let late = readyWaiters.filter { $0.deadline <= now }
        readyWaiters.removeAll { $0.deadline <= now }
        for waiter in late { waiter.resolve(.failure(waiter.timeoutError)) }
        flushOps()
    }
}
