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
    func adminChange(at seq: UInt64) -> AdminChange {
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

    /// Stops serving the board because it is archived: every subscriber gets `not_found` (the board is gone for
    /// them, as for a board that does not exist) and is dropped, presence is cleared. The caller has removed the
    /// board from the registry and drained it first.
    func closeForArchive() {
        isClosed = true
        let line = Lines.error(WireError(.notFound, "board \(id) was archived", board: id))
        for (session, ref) in subscribers {
            ref.outbox.send(line)
            fanOut.remove(session)
        }
        subscribers = [:]
        presence = [:]
        presenceUpdated = [:]
    }
}
