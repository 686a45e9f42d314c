import BoardCore
import Logging
import PostgresNIO

extension PostgresStore: HeadWatching {
    /// The channel every commit notifies (`pg_notify` inside the commit's transaction, so it is sent only if the
    /// transaction commits, and in commit order).
    static let headsChannel = "corkd_heads"

    /// The statement an append runs, once per board it added events to: the payload is `SEQ MILLIS BOARD` (the new
    /// head, the database's clock in milliseconds, the board id; a few dozen bytes, far below NOTIFY's 8,000).
    static func notifyHead(board: String, head: Int64) -> PostgresQuery {
        """
        SELECT pg_notify(\(headsChannel), concat(\(head)::text, ' ', \(unescaped: nowMillisecondsSQL)::text, ' ', \(board)::text))
        """
    }

    /// Parses a payload of `notifyHead`; nil for anything else.
    static func headSignal(payload: String) -> HeadSignal? {
        let parts = payload.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let seq = UInt64(parts[0]), let millis = Int64(parts[1]), !parts[2].isEmpty else { return nil }
        return .moved(board: BoardID(String(parts[2])), seq: seq, committedAt: Timestamp(milliseconds: millis))
    }

    /// Keeps one connection of its own (outside the pool) on `LISTEN corkd_heads` and hands every announcement to
    /// `signal`. `.listening` is signalled only once `LISTEN` is in effect, so a catch-up started then misses
    /// nothing: a commit is either in the events table by the time the catch-up reads it, or announced after.
    public func watchHeads(retryDelay: Duration, _ signal: @escaping @Sendable (HeadSignal) async -> Void) async {
        var listenedBefore = false
        var attempt = 0
        while !Task.isCancelled {
            var reason = "the connection closed"
            do {
                let connection = try await dedicatedConnection("LISTEN \(Self.headsChannel)")
                do {
                    try await connection.listen(on: Self.headsChannel) { notifications in
                        await signal(.listening(reconnected: listenedBefore))
                        listenedBefore = true
                        attempt = 0
                        for try await notification in notifications {
                            if let moved = Self.headSignal(payload: notification.payload) { await signal(moved) }
                        }
                    }
                } catch {
                    reason = "\(StoreError(postgres: error, context: "LISTEN \(Self.headsChannel)"))"
                }
                try? await connection.close()
            } catch {
                reason = "\(error)"
            }
            if Task.isCancelled { return }
            // The server logs it (once, then about once a minute while it lasts): a line per retry flooded the log.
            attempt += 1
            await signal(.lost(reason, attempt: attempt))
            try? await Task.sleep(for: retryDelay)
        }
    }
}
