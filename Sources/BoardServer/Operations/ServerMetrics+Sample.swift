import BoardTransport
import NIOCore

extension ServerMetrics {
    /// The levels read when the endpoint is scraped: connections by state, subscriptions per board as a bounded
    /// summary (total, boards with subscribers, the busiest board's count: never one series per board), and the
    /// bytes queued for subscribers and not yet written.
    struct Sample: Sendable {
        var connections = 0
        var authenticated = 0
        var boards = 0
        var subscriptions = 0
        var boardsSubscribed = 0
        var subscribersMax = 0
        var queuedBytes = 0

        /// Reads the levels from the server's session directory and boards.
        static func take(directory: SessionDirectory, registry: BoardRegistry) async -> Sample {
            var sample = Sample()
            sample.connections = await directory.connections
            let sessions = await directory.all()
            sample.authenticated = sessions.count
            let boards = await registry.all()
            sample.boards = boards.count
            for board in boards {
                let count = await board.subscriberCount
                sample.subscriptions += count
                if count > 0 { sample.boardsSubscribed += 1 }
                sample.subscribersMax = max(sample.subscribersMax, count)
            }
            for session in sessions {
                sample.queuedBytes += (try? await OutboxHandler.pendingBytes(on: session.outbox.channel).get()) ?? 0
            }
            return sample
        }
    }
}

extension BoardActor {
    /// The sessions subscribed to this board (for metrics).
    var subscriberCount: Int { subscribers.count }
}
