import BoardClientCore
import BoardCore

/// Presence on the page: changes gathered for at most ``LiveSession/presenceDelay`` and sent as what changed, the
/// whole list only after the client subscribed.
extension LiveSession {
    /// Puts `.flushPresence` into `inputs` after `delay`.
    static func flushPresence(after delay: Duration, into inputs: AsyncStream<Input>.Continuation) {
        Task {
            try? await Task.sleep(for: delay)
            inputs.yield(.flushPresence)
        }
    }

    /// Notes a presence event for the next flush.
    func note(_ presence: PresenceEvent) {
        switch presence.change {
        case .state:
            presenceNow = presence.sessions
            presenceSet = [:]
            presenceLeft = []
            presenceFull = true
        // Until the whole list has gone to the page, a change goes into that list: a flush sends the list alone, so
        // a session that joined between the list and the flush (everyone subscribing at once after a restart) was
        // dropped, and the page missed that person until their next change.
        case .updated(let entry) where presenceFull:
            presenceNow[entry.session] = entry
        case .left(let session, _) where presenceFull:
            presenceNow[session] = nil
        case .updated(let entry):
            presenceLeft.remove(entry.session)
            presenceSet[entry.session] = entry
        case .left(let session, _):
            presenceSet[session] = nil
            presenceLeft.insert(session)
        }
        presenceChanged()
    }

    /// Presence changed (or the page needs the whole list): a flush follows within `presenceDelay`.
    func presenceChanged() {
        presenceDirty = true
        if !presenceFlushScheduled, let inputs {
            presenceFlushScheduled = true
            Self.flushPresence(after: Self.presenceDelay, into: inputs)
        }
    }

    /// What the page is told of presence now: the whole list (everyone else, by session) when it needs it, else the
    /// sessions set and gone since the last time; nil when nothing changed for it.
    func takePresenceMessage(members: [UserID: Member] = [:]) -> (any Encodable)? {
        guard presenceDirty else { return nil }
        defer {
            presenceDirty = false
            presenceFull = false
            presenceSet = [:]
            presenceLeft = []
            // The full list is needed only for this flush: the page keeps it, and nothing here does.
            presenceNow = [:]
        }
        let own = welcome?.session
        if presenceFull {
            let others = presenceNow.values.filter { $0.session != own }.sorted { $0.session < $1.session }
            return LiveMessage.Presence(sessions: others.map { view($0, members) })
        }
        let set = presenceSet.values.filter { $0.session != own }.sorted { $0.session < $1.session }
        let left = presenceLeft.filter { $0 != own }.sorted()
        guard !set.isEmpty || !left.isEmpty else { return nil }
        return LiveMessage.PresenceChange(set: set.map { view($0, members) }, left: left)
    }

    /// An entry as the page gets it, named by the member's display name (or the user id).
    func view(_ entry: PresenceEntry, _ members: [UserID: Member]) -> LiveMessage.PresenceView {
        let name = members[entry.user]?.name ?? ""
        return LiveMessage.PresenceView(
            session: entry.session, user: entry.user, name: name.isEmpty ? entry.user.rawValue : name,
            state: entry.state, card: entry.card, column: entry.column, index: entry.index, away: entry.away ?? false,
            note: entry.away == true ? entry.awayNote : nil)
    }
}
