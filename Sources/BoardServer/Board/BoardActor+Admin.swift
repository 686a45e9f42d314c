import BoardCore
import BoardWire

extension BoardActor {
    /// Stops serving the board because it is archived: every subscriber gets `not_found` (the board is gone for
    /// them, as for a board that does not exist) and is dropped, presence is cleared. The caller has removed the
    /// board from the registry and drained it first.
    func closeForArchive() {
        machine.close()
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
