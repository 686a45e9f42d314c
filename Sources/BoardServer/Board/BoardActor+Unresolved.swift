import BoardCore
import BoardStore

extension BoardActor {
    /// How long a board waits between reads of the store while the outcome of a commit is unknown.
    static let resolveRetryDelay: Duration = .milliseconds(500)

    /// The database connection was lost while the batch in flight was being committed, so it may be stored or not.
    /// Its ops are neither acknowledged nor rejected yet: a `reject` says nothing was applied, and a client sends a
    /// rejected op again under a new mut, which would apply it twice. What was applied on top of the batch was never
    /// handed to the store: it is rejected now (`storage_busy`, retryable), and so is every new op until the outcome
    /// is known. The board reads the store after its durable seq (`catchUp`) every `resolveRetryDelay` until the
    /// database answers: if the batch is stored, it is acknowledged and fanned out as if its commit had answered;
    /// if not, it is applied again on the stored head and written, as after a moved head.
    func commitOutcomeUnknown(_ error: StoreError) async {
        configuration.metrics.commitFailed()
        logger.warning(
            "the database connection was lost during a commit; reading the store until it answers whether the commit landed",
            metadata: ["error": "\(error)"])
        unresolved = true
        if let end = inFlightEnd { head = end.board }
        let dropped = pending
        pending = []
        for change in dropped {
            if change.event.clientID == nil { serverChange(at: change.event.seq, became: .lost) }
            guard let mut = change.event.mut else { continue }
            for session in change.answerees { reject(session, mut, .storageBusy, Self.unresolvedMessage) }
        }
        await catchUp()
    }

    /// What a refused op is told while a commit's outcome is unknown.
    static let unresolvedMessage =
        "the connection to the database was lost during a commit and the database does not answer yet; nothing was applied"

    /// Whether the events read after `committed.seq` start with the batch in flight (then its commit landed: a
    /// transaction is all or nothing, and its first seq follows `committed`). A client's change is known by its
    /// (user, client id, mut), which is stored once; a server change by its actor, time and op.
    func batchLanded(_ events: [StoredEvent]) -> Bool {
        guard let ours = inFlight.first?.event, let stored = events.first, stored.seq == ours.seq else { return false }
        if ours.clientID != nil {
            return stored.actor == ours.actor && stored.clientID == ours.clientID && stored.mut == ours.mut
        }
        return stored.clientID == nil && stored.actor == ours.actor && stored.at == ours.at && stored.op == ours.op
    }

    /// Reads the store again for the unresolved batch after `resolveRetryDelay` (once at a time).
    func scheduleResolve() {
        guard !resolveScheduled else { return }
        resolveScheduled = true
        let outcomes = self.outcomes
        Task {
            try? await Task.sleep(for: Self.resolveRetryDelay)
            outcomes.yield(.resolve)
        }
    }

    /// Stopping while the database still does not answer: the unresolved batch is left unanswered, never rejected
    /// (its clients send its ops again, with their muts, to a node that can reach the database: exactly-once finds
    /// each stored or applies it), and the board stops.
    func abandonUnresolved() {
        logger.warning("stopping with the outcome of a commit unknown; its clients resend its ops", metadata: ["ops": "\(inFlight.count)"])
        for change in inFlight + pending where change.event.clientID == nil {
            serverChange(at: change.event.seq, became: .lost)
        }
        unresolved = false
        committing = false
        sinceSnapshot -= min(sinceSnapshot, UInt64(inFlight.count))
        inFlight = []
        inFlightEnd = nil
        publication.clear()
        pending = []
        head = committed
        resumeDrainWaiters()
    }
}
