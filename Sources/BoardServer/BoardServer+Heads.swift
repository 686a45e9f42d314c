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
        case .lost(let reason, let attempt):
            metrics.storeUnreachable()
            if let line = listenLossLine(attempt: attempt, "LISTEN lost: other nodes' changes reach this node's subscribers late") {
                logger.warning("\(line)", metadata: ["reason": "\(reason)"])
            }
        case .moved(let id, let seq, let committedAt):
            metrics.recordNotifyLag(.milliseconds(max(0, WallClock().now().milliseconds - committedAt.milliseconds)))
            await registry.loaded(id)?.noticed(head: seq)
        }
    }

    /// What to log for try `attempt` at a LISTEN connection since it was lost: `first` for the first, a line about
    /// every 120th (about a minute at the 500 ms retry), nothing for the others.
    static func listenLossLine(attempt: Int, _ first: String, what: String = "LISTEN") -> String? {
        if attempt == 1 { return first }
        guard attempt % 120 == 0 else { return nil }
        return "\(what) still lost after \(attempt) attempts: the database cannot be reached"
    }
}
