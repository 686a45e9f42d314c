import BoardCore
import BoardStore
import Logging

extension BoardServer {
    /// Hands a head announcement of the shared store to the board it is about: a board loaded here that is behind
    /// reads the changes it misses from the events table and fans them out (`BoardActor.noticed`). When the LISTEN
    /// connection is (re-)established every loaded board checks, since announcements made while it was down are lost.
    /// While it is lost the node cannot reach its database: the health port answers 503 until it is back.
    static func route(_ signal: HeadSignal, registry: BoardRegistry, metrics: ServerMetrics, logger: Logger) async {
        switch signal {
        case .listening(let reconnected):
            metrics.storeReached()
            if reconnected {
                metrics.listenReconnected()
                logger.info("LISTEN re-established; every board catches up by seq")
            }
            for board in await registry.all() { board.noticed(head: nil) }
        case .lost(let reason):
            metrics.storeUnreachable()
            logger.warning("LISTEN lost: other nodes' changes reach this node's subscribers late", metadata: ["reason": "\(reason)"])
        case .moved(let id, let seq, let committedAt):
            metrics.recordNotifyLag(.milliseconds(max(0, WallClock().now().milliseconds - committedAt.milliseconds)))
            await registry.loaded(id)?.noticed(head: seq)
        }
    }
}
