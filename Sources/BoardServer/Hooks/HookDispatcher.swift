import BoardCore
import BoardStore
import Logging

/// Runs one ``HookWorker`` per stored hook, beside the server's boards and off their path: it starts workers for
/// hooks added, stops those of hooks removed (reading the store's list on every `hooksChanged` note and every
/// `idlePoll`), and passes each board's commit notes on to its hooks' workers.
///
/// Several nodes on one PostgreSQL database: one node delivers, the one holding the hooks lease (``LeaseKeeper``),
/// so each change is delivered once, not once per node. The others run no worker; when the deliverer dies or loses
/// the database, another node takes the lease at its next look (every `idlePoll`) and its workers go on from each
/// hook's durable cursor (at least once: a delivery the old node had in flight may come again, with the same id).
struct HookDispatcher {
    let store: any BoardStore
    /// A board as its actor has committed it now, for hooks with a query; nil when it is not served (archived, or
    /// gone). The server reads it from its `BoardRegistry` (loading a board another node made, with a shared store).
    let board: @Sendable (BoardID) async -> Board?
    /// A board's committed changes after a seq from its recent log; nil when the log does not hold them or the board
    /// is not served (the workers then read the store).
    let recent: @Sendable (BoardID, UInt64) async -> [CommittedChange]?
    /// The settings as they are now (they can change while the server runs).
    let settings: @Sendable () -> HookSettings
    let signals: HookSignals
    let clock: any ServerClock
    let metrics: ServerMetrics
    let logger: Logger
    /// The store as several nodes share it (nil: only this node serves it).
    var shared: (any SharedStore)? = nil
    /// Read every few seconds: a database outage is logged when it starts, about once a minute, and when it ends.
    let readLog = RetryLog("cannot read the webhooks; trying again", recovered: "the webhooks are read again")

    /// A running worker: its board, and how to ring it (finishing it stops the worker).
    struct Running {
        let board: BoardID
        let bell: AsyncStream<HookWorker.Ring>.Continuation
    }

    /// Delivers until cancelled (the server stops).
    func run() async {
        await withDiscardingTaskGroup { group in
            var running: [String: Running] = [:]
            let signals = self.signals
            let poll = settings().idlePoll
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: poll)
                    signals.poll()
                }
            }
            var lease = LeaseKeeper(.hooks, logger: logger)
            await refresh(&running, &group, &lease)
            for await signal in signals.stream {
                switch signal {
                case .committed(let board):
                    for worker in running.values where worker.board == board { worker.bell.yield(.committed) }
                case .hooksChanged:
                    await refresh(&running, &group, &lease)
                case .retryNow(let id):
                    running[id]?.bell.yield(.retryNow)
                }
            }
            logger.info("webhook dispatcher stopping: finishing \(running.count) workers, releasing the lease")
            for worker in running.values { worker.bell.finish() }
            await lease.release()
            logger.info("webhook dispatcher: lease released; waiting for the workers")
            group.cancelAll()
        }
    }

    /// Brings the workers in line with the stored hooks while this node delivers; stops them all when another
    /// node does.
    private func refresh(
        _ running: inout [String: Running], _ group: inout DiscardingTaskGroup, _ lease: inout LeaseKeeper
    ) async {
        guard await lease.holds(shared) else {
            if !running.isEmpty { logger.info("another node delivers the webhooks now; stopping this node's workers") }
            for worker in running.values { worker.bell.finish() }
            running = [:]
            signals.hooksRead(any: false)
            return
        }
        await sync(&running, &group)
    }

    /// Starts a worker for every stored hook without one, and stops those whose hook is gone.
    private func sync(_ running: inout [String: Running], _ group: inout DiscardingTaskGroup) async {
        let hooks: [HookRecord]
        do {
            hooks = try await store.hooks(board: nil)
            readLog.worked(logger)
        } catch {
            // Cancelled: corkd is stopping (another listener failed to start, say), not a store in trouble.
            if !Task.isCancelled { readLog.failed(error, logger) }
            return
        }
        signals.hooksRead(any: !hooks.isEmpty)
        let ids = Set(hooks.map(\.id))
        for (id, worker) in running where !ids.contains(id) {
            worker.bell.finish()
            running[id] = nil
        }
        for hook in hooks where running[hook.id] == nil {
            let (rings, bell) = AsyncStream.makeStream(of: HookWorker.Ring.self, bufferingPolicy: .bufferingNewest(16))
            running[hook.id] = Running(board: hook.board, bell: bell)
            let worker = HookWorker(
                hook: hook, store: store, board: board, recent: recent, settings: settings, clock: clock, metrics: metrics, logger: logger,
                rings: rings, bell: bell)
            group.addTask {
                var worker = worker
                await worker.run()
            }
        }
    }
}
