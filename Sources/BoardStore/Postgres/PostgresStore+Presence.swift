import Logging
import PostgresNIO

extension PostgresStore: PresenceBus {
    /// The channel the nodes' presence messages go through (never stored: a `NOTIFY` outside any table).
    static let presenceChannel = "corkd_presence"

    /// NOTIFY's own limit is 8,000 bytes; the relay packs its messages well below it.
    public var presencePayloadMax: Int { 6_000 }

    /// Publishes one message with `pg_notify` on a pooled connection (autocommit: heard once the call returns).
    public func publishPresence(_ payload: String) async throws(StoreError) {
        let logger = self.logger
        try await read("presence NOTIFY") { connection in
            _ = try await connection.query("SELECT pg_notify(\(Self.presenceChannel), \(payload))", logger: logger)
        }
    }

    /// Keeps one connection of its own (outside the pool) on `LISTEN corkd_presence`. `.listening` is signalled only
    /// once `LISTEN` is in effect, so a request to re-announce sent then is answered where it is heard.
    ///
    /// The connection is not the one `watchHeads` listens on: presence (drag positions, several a second per person)
    /// then never delays the commits' announcements, and each loop reconnects on its own.
    public func watchPresence(retryDelay: Duration, _ signal: @escaping @Sendable (PresenceBusSignal) async -> Void) async {
        var listenedBefore = false
        var attempt = 0
        while !Task.isCancelled {
            var reason = "the connection closed"
            do {
                let connection = try await dedicatedConnection("LISTEN \(Self.presenceChannel)")
                do {
                    try await connection.listen(on: Self.presenceChannel) { notifications in
                        await signal(.listening(reconnected: listenedBefore))
                        listenedBefore = true
                        attempt = 0
                        for try await notification in notifications { await signal(.message(notification.payload)) }
                    }
                } catch {
                    reason = "\(StoreError(postgres: error, context: "LISTEN \(Self.presenceChannel)"))"
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
