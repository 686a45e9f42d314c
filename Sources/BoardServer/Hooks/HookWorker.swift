import BoardCore
import BoardStore
import Logging

/// Delivers one hook's changes, in seq order, at least once: takes the board's committed changes after the hook's
/// cursor from the board's recent log (from the store when the log no longer holds them), POSTs each matching
/// one until its receiver answers 2xx (backing off between failed attempts), and moves the durable cursor past it. A
/// restart resumes from the stored cursor, so a change whose delivery was not recorded before a crash is delivered
/// again, with the same delivery id.
///
/// A hook with a query (``HookDelivery``) also needs the board: the cards a change is about come from the board's
/// actor (``HookDispatcher/board``), read as committed now. A change the actor has not committed yet (read from the
/// store, which is ahead of it for a moment, or another node's commit has not reached it) waits for the actor's next
/// commit rather than being judged on an older board.
struct HookWorker {
    /// What wakes a worker.
    enum Ring: Sendable {
        /// The hook's board committed changes.
        case committed
        /// Try now, even during a backoff (the receiver answered a test).
        case retryNow
        /// The pause with this number is over.
        case timer(Int)
    }

    var hook: HookRecord
    /// The events and the query a change must pass.
    let filter: HookDelivery
    /// Why the stored query does not parse (it did at `hook.add`; a later parser could refuse it): nothing is
    /// delivered or skipped then, until the hook is removed.
    let unusableQuery: HookProblem?
    let store: any BoardStore
    /// The hook's board as committed now; nil when it is not served (archived, or gone).
    let board: @Sendable (BoardID) async -> Board?
    /// The board's committed changes after a seq from its recent log; nil when the log does not hold them (or the
    /// board is not served): then they are read from the store.
    let recent: @Sendable (BoardID, UInt64) async -> [CommittedChange]?
    /// The settings as they are now: each delivery reads them.
    let currentSettings: @Sendable () -> HookSettings
    var settings: HookSettings { currentSettings() }
    /// A database outage is logged when it starts, about once a minute, and when it ends, not at every poll.
    let readLog = RetryLog("cannot read the board's changes; trying again", recovered: "the board's changes are read again")
    let clock: any ServerClock
    let metrics: ServerMetrics
    let logger: Logger
    /// Where the worker's rings arrive; finished when the hook is removed.
    let rings: AsyncStream<Ring>
    /// The same stream's input (the worker's own timers ring through it).
    let bell: AsyncStream<Ring>.Continuation
    /// Numbers the pauses, so that a late timer of an earlier pause never cuts a later one short.
    private var pauses = 0

    init(
        hook: HookRecord, store: any BoardStore, board: @escaping @Sendable (BoardID) async -> Board?,
        recent: @escaping @Sendable (BoardID, UInt64) async -> [CommittedChange]?,
        settings: @escaping @Sendable () -> HookSettings, clock: any ServerClock, metrics: ServerMetrics,
        logger: Logger, rings: AsyncStream<Ring>, bell: AsyncStream<Ring>.Continuation
    ) {
        self.hook = hook
        switch HookDelivery.parseQuery(hook.query) {
        case .success(let query):
            filter = HookDelivery(events: HookFilter(stored: hook.events), query: query)
            unusableQuery = nil
        case .failure(let problem):
            filter = HookDelivery(events: HookFilter(stored: hook.events), query: nil)
            unusableQuery = problem
        }
        self.store = store
        self.board = board
        self.recent = recent
        self.currentSettings = settings
        self.clock = clock
        self.metrics = metrics
        var logger = logger
        logger[metadataKey: "hook"] = "\(hook.id)"
        logger[metadataKey: "board"] = "\(hook.board)"
        self.logger = logger
        self.rings = rings
        self.bell = bell
    }

    /// Delivers until the hook is removed or the server stops.
    mutating func run() async {
        var iterator = rings.makeAsyncIterator()
        if let problem = unusableQuery {
            logger.error(
                "the webhook's stored query does not parse; it delivers nothing until it is removed",
                metadata: ["error": "\(problem)"])
            hook.state.lastError = "stored \(problem.message)"
            await save()
            while await pause(settings.idlePoll, wakeOnCommit: false, &iterator) {}
            return
        }
        while !Task.isCancelled {
            let events: [CommittedChange]
            do {
                if let logged = await recent(hook.board, hook.state.delivered) {
                    events = Array(logged.prefix(settings.batch))
                } else {
                    events = try await store.events(
                        hook.board, from: hook.state.delivered + 1, to: UInt64(Int64.max), limit: settings.batch
                    ).map(CommittedChange.init)
                }
                readLog.worked(logger)
            } catch {
                readLog.failed(error, logger)
                guard await pause(settings.idlePoll, wakeOnCommit: false, &iterator) else { return }
                continue
            }
            if events.isEmpty {
                guard await pause(settings.idlePoll, wakeOnCommit: true, &iterator) else { return }
                continue
            }
            var skipped = false
            var behind = false
            for event in events {
                // The board a query is matched on: read for each change that needs it, as committed now (the
                // decision is made once, before the first attempt; retries do not judge again).
                var current: Board?
                if filter.needsBoard(event.activity) {
                    current = await board(hook.board)
                    guard let current, current.seq >= event.seq else {
                        behind = true
                        break
                    }
                }
                let context = QueryContext(today: clock.now().day, me: hook.createdBy)
                guard filter.passes(event.activity, on: current, context: context) else {
                    hook.state.delivered = event.seq
                    skipped = true
                    continue
                }
                guard await deliver(event, &iterator) else { return }
                skipped = false
            }
            // The cursor moves past changes the filter skips too, so a restart does not read them again.
            if skipped { await save() }
            if behind {
                // Not judged on an older board: wait for the actor's commit (or the board's return), then read on.
                logger.debug("the board is behind the change to match, or not served; waiting")
                guard await pause(settings.idlePoll, wakeOnCommit: true, &iterator) else { return }
            }
        }
    }

    /// Attempts `event` until its receiver takes it; false when the hook was removed or the server stops.
    private mutating func deliver(_ event: CommittedChange, _ iterator: inout AsyncStream<Ring>.AsyncIterator) async -> Bool {
        while true {
            let now = clock.now()
            let payload = HookPayload(hook: hook, change: event, now: now)
            let outcome = await HookSender.send(payload, to: hook.url, settings: settings)
            switch outcome {
            case .delivered:
                // Recorded even when the server is stopping meanwhile (the receiver's 204 can come back during a
                // shutdown): a delivery the receiver took and the cursor does not know of is sent again after the
                // restart.
                hook.state = settings.retry.delivered(hook.state, seq: event.seq, now: now)
                metrics.hookDelivered()
                await saveEvenIfCancelled()
                return !Task.isCancelled
            case .failed where Task.isCancelled:
                return false
            case .failed(_, let reason):
                let wasFailing = hook.state.failing
                hook.state = settings.retry.failed(hook.state, error: reason, now: now)
                metrics.hookFailed()
                if hook.state.failing && !wasFailing {
                    logger.warning(
                        "webhook marked failing: no delivery for the whole retry window; its changes stay queued",
                        metadata: ["error": "\(reason)", "failures": "\(hook.state.failures)"])
                } else {
                    logger.debug("webhook delivery failed", metadata: ["seq": "\(event.seq)", "error": "\(reason)"])
                }
                await save()
                let delay = settings.retry.delay(afterFailures: hook.state.failures, jitter: Double.random(in: 0...1))
                guard await pause(delay, wakeOnCommit: false, &iterator) else { return false }
            }
        }
    }

    /// `save()` in a task of its own, which the worker's cancellation (the server stopping) does not reach: the
    /// store's writes give up when their task is cancelled. It is awaited, so the worker still ends after it.
    private func saveEvenIfCancelled() async {
        let worker = self
        await Task { await worker.save() }.value
    }

    /// Records the hook's state; a store failure is logged (the cursor then lags, and a restart delivers again).
    private func save() async {
        do {
            try await store.updateHook(hook.id, state: hook.state)
        } catch {
            logger.warning("cannot record the webhook's delivery state", metadata: ["error": "\(error)"])
        }
    }

    /// Waits `delay`, or less when rung (by a commit only if `wakeOnCommit`); false when the hook was removed or the
    /// server stops.
    private mutating func pause(
        _ delay: Duration, wakeOnCommit: Bool, _ iterator: inout AsyncStream<Ring>.AsyncIterator
    ) async -> Bool {
        pauses += 1
        let number = pauses
        let bell = self.bell
        // Cancelled when the pause ends, however it ends: never left behind.
        let timer = Task {
            try? await Task.sleep(for: delay)
            bell.yield(.timer(number))
        }
        defer { timer.cancel() }
        while let ring = await iterator.next() {
            switch ring {
            case .timer(let n) where n == number: return true
            case .timer: continue
            case .committed: if wakeOnCommit { return true }
            case .retryNow: return true
            }
        }
        return false
    }
}
