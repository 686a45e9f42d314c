import BoardCore
import BoardWire

extension BoardActor {
    /// Applies an admin command's op as the server (`applyAsServer`): the seq it will be committed at, nil when it
    /// changed nothing, or the rejection.
    func applyForAdmin(_ op: Op) -> Result<UInt64?, Rejection> {
        let before = head.seq
        if let rejection = applyAsServer(op) { return .failure(rejection) }
        return .success(head.seq > before ? head.seq : nil)
    }

    /// Where the server's own change at `seq` stands: durable, still pending, or lost (its batch failed to commit
    /// and `head` rolled back past it, or another change now holds the seq).
    func adminChange(at first: UInt64) -> AdminChange {
        var seq = first
        switch serverChanges[first] {
        case .lost?:
            serverChanges[first] = nil
            return .lost
        case .noop?:
            serverChanges[first] = nil
            return .durable
        case .at(let now)?:
            seq = now
            if committed.seq >= now { serverChanges[first] = nil }
        case nil:
            break
        }
        if committed.seq >= seq {
            if let entry = log.entry(seq), entry.activity.actor != "corkd" { return .lost }
            return .durable
        }
        return head.seq >= seq ? .pending : .lost
    }

    /// See `adminChange(at:)`.
    enum AdminChange {
        case durable, pending, lost
    }

    /// What a catch-up did to a server change (see `serverChanges`).
    enum ServerChangeFate: Equatable {
        /// Applied again at this seq.
        case at(UInt64)
        /// Applied again, and it changed nothing any more (another node made the same change): done.
        case noop
        /// Refused when applied again.
        case lost
    }

    /// Records what a catch-up did to the server change that was at `old`, under the seq the admin poller knows it by.
    func serverChange(at old: UInt64, became fate: ServerChangeFate) {
        let first = serverChanges.first(where: { $0.value == .at(old) })?.key ?? old
        serverChanges[first] = fate
    }

    /// Stops serving the board because it is archived: every subscriber gets `not_found` (the board is gone for
    /// them, as for a board that does not exist) and is dropped, presence is cleared. The caller has removed the
    /// board from the registry and drained it first.
    func closeForArchive() {
        isClosed = true
        let line = Lines.error(WireError(.notFound, "board \(id) was archived", board: id))
        for (session, ref) in subscribers {
            ref.outbox.send(line)
            publication.withFanOut { $0.remove(session) }
        }
        subscribers = [:]
        for (session, entry) in presence where !isRemote(session) {
            configuration.presenceOutbound?.left(id, session, entry.user)
        }
        presence.removeAll()
        remotePresent = []
        presenceUpdated = [:]
    }
}
