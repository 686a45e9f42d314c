extension BoardClient {
    /// Wakes the timer loop: a new deadline. It then sleeps until the earliest one.
    func armTimer() {
        timerWake?.resume()
        timerWake = nil
    }

    /// The one timer, set to the earliest deadline: the session's (backoff, heartbeat, paced send) or a waiter's
    /// timeout. With nothing to time it waits for ``armTimer()``, so an idle client uses no CPU; it never polls.
    func runTimers() async {
        while !session.isStopped {
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

    /// The earliest time something must happen.
    var nextDeadline: ContinuousClock.Instant? {
        var earliest = sessionDeadline
        func consider(_ instant: ContinuousClock.Instant) {
            if earliest.map({ instant < $0 }) ?? true { earliest = instant }
        }
        for waiter in requests.values { consider(waiter.deadline) }
        for waiters in opWaiters.values { for waiter in waiters { consider(waiter.deadline) } }
        for waiter in readyWaiters { consider(waiter.deadline) }
        return earliest
    }

    /// Fails waiters past their deadline and tells the session when its deadline came.
    func fireTimers() {
        let now = ContinuousClock.now
        for (req, waiter) in requests where waiter.deadline <= now {
            requests[req] = nil
            session.abandonRequest(req)
            waiter.resolve(.failure(waiter.timeoutError))
        }
        for (mut, waiters) in opWaiters {
            let (late, onTime) = (waiters.filter { $0.deadline <= now }, waiters.filter { $0.deadline > now })
            for waiter in late { waiter.resolve(.failure(waiter.timeoutError)) }
            opWaiters[mut] = onTime.isEmpty ? nil : onTime
        }
        let late = readyWaiters.filter { $0.deadline <= now }
        readyWaiters.removeAll { $0.deadline <= now }
        for waiter in late {
            session.boardWaitEnded()
            waiter.resolve(.failure(waiter.timeoutError))
        }
        if let deadline = sessionDeadline, deadline <= now {
            sessionDeadline = nil
            carryOut(session.timerFired(now: now - started))
        }
    }
}
