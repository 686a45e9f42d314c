import BoardCore
import BoardWire
import NIOCore

extension BoardActor {
    /// Tells this board's other subscribers, and the other nodes, that a local session is present as `entry` (a join
    /// or a change); `except` does not get the line.
    func presenceChanged(_ entry: ServerMessage.PresenceEntry, except: SessionID?) {
        queuePresence(Lines.line(.presence(ServerMessage.Presence(board: id, entry: entry))), about: except)
        configuration.presenceOutbound?.set(id, entry)
    }

    /// Tells this board's other subscribers, and the other nodes, that a local session left.
    func presenceLeft(_ session: SessionID, user: UserID) {
        queuePresence(Lines.line(.presenceLeft(ServerMessage.PresenceLeft(board: id, session: session, user: user))), about: session)
        configuration.presenceOutbound?.left(id, session, user)
    }

    /// Shows a session of another node (``PresenceRelay``): in `presence.state` from now on, and as a `presence`
    /// line to every subscriber here. An entry like the one shown changes nothing.
    func remotePresenceSet(_ entry: ServerMessage.PresenceEntry) {
        guard !isClosed else { return }
        // A session id of this node's own is never replaced by another node's (ids are random; this is a guard).
        guard remotePresent.contains(entry.session) || presence[entry.session] == nil else { return }
        guard presence[entry.session] != entry else { return }
        presence[entry.session] = entry
        remotePresent.insert(entry.session)
        queuePresence(Lines.line(.presence(ServerMessage.Presence(board: id, entry: entry))), about: nil)
    }

    /// A session of another node left: `presence.left` to every subscriber here.
    func remotePresenceLeft(_ session: SessionID, user: UserID) {
        guard remotePresent.remove(session) != nil else { return }
        presence[session] = nil
        queuePresence(Lines.line(.presenceLeft(ServerMessage.PresenceLeft(board: id, session: session, user: user))), about: nil)
    }

    /// Drops every local session's entry in the relay again (a full announcement; ``PresenceRelay/announce()``).
    func announcePresence() {
        guard let outbound = configuration.presenceOutbound else { return }
        for (session, entry) in presence where !remotePresent.contains(session) { outbound.set(id, entry) }
    }

    /// Whether the session present here is another node's.
    func isRemote(_ session: SessionID) -> Bool { remotePresent.contains(session) }
}
