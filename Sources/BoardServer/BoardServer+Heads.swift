import BoardCore
import BoardStore
import Logging

extension BoardServer {
    /// Hands a head announcement of the shared store to the board it is about: a board loaded here that is behind
    /// reads the changes it misses from the events table and fans them out (`BoardActor.noticed`). When the LISTEN
    /// connection is (re-)established every loaded board checks, since announcements made while it was down are lost.
    /// While it is lost the node cannot reach its database: the health port answers 503 until it is back. `log` says
    /// when LISTEN was lost, about once a minute while it stays lost, and when it is back.
    static func route(
        _ signal: HeadSignal, registry: BoardRegistry, metrics: ServerMetrics, log: RetryLog, logger: Logger
    ) async {
        switch signal {
        case .listening(let reconnected):
            metrics.storeReached()
            if reconnected {
                metrics.listenReconnected()
                logger.info("\(log.workedLine() ?? log.recovered)")
            }
            for board in await registry.all() { board.noticed(head: nil) }
        case .lost(let reason, _):
            metrics.storeUnreachable()
            log.failed(reason, logger)
        case .moved(let id, let seq, let committedAt):
            metrics.recordNotifyLag(.milliseconds(max(0, WallClock().now().milliseconds - committedAt.milliseconds)))
            await registry.loaded(id)?.noticed(head: seq)
        }
    }
}
