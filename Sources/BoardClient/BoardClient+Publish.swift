import BoardCore
import BoardWire
import Foundation

extension BoardClient {
    /// Emits a board update when what is shown changed: the new snapshot and the diff from the last one shown.
    func publishBoard(cause: BoardUpdate.Cause, changedByOthers: Set<CardID> = []) {
        guard let board = replica?.view else { return }
        if cause != .snapshot, let shownBoard, shownBoard == board { return }
        let snapshot = board.snapshot()
        let previous = shown ?? BoardSnapshot(seq: 0, columns: [])
        let diff = SnapshotDiff(from: previous, to: snapshot)
        shown = snapshot
        shownBoard = board
        eventSink.yield(
            .board(BoardUpdate(board: board, snapshot: snapshot, diff: diff, cause: cause, changedByOthers: changedByOthers)))
    }

    /// Writes the journal (client id, next mut, unfinished ops) when there is one.
    func saveJournal() throws(ClientError) {
        guard let journalFile else { return }
        let pending = pendingOps + restored
        try journalFile.save(ClientJournal(clientID: clientID, nextMut: nextMut, pending: pending))
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
            if configuration.paceOps, !bucket.take(now: now) {
                armTimer()
                return
            }
            unsent.removeFirst()
            send(op.message)
        }
    }

    /// When the next paced send may happen (seconds on ``elapsed``), if ops are waiting.
    var nextFlush: Double? {
        guard !unsent.isEmpty, welcome != nil else { return nil }
        let now = elapsed.seconds
        if let holdUntil, holdUntil > now { return holdUntil }
        return now + bucket.wait(now: now)
    }

    // MARK: - Timers

    /// Wakes the timer loop (a new deadline, or paced ops waiting).
    func armTimer() {
        timerWake?.resume()
        timerWake = nil
    }

    /// The timer loop: fails waiters past their deadline and sends paced ops when the bucket refills. Sleeps on a
    /// continuation when there is nothing to time, so an idle client uses no CPU.
    func runTimers() async {
        while !isStopped {
            if !hasTimers {
                await withCheckedContinuation { timerWake = $0 }
                continue
            }
            do {
                try await Task.sleep(for: .milliseconds(20))
            } catch {
                return
            }
            fireTimers()
        }
    }

    var hasTimers: Bool {
        !requests.isEmpty || !opWaiters.isEmpty || !readyWaiters.isEmpty || nextFlush != nil
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
