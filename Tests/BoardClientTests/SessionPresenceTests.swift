import BoardClient
import BoardCore
import BoardWire
import Testing

/// Presence belongs to a subscription (states carry their data): it arrives with `presence_state` after
/// a subscribe, and it ends with the subscription, whatever ends it, not only where someone remembered to clear it.
@Suite struct SessionPresenceTests {
    static let carol = ServerMessage.PresenceEntry(session: "s-9", user: "carol", state: .viewing, card: "c1")

    static func liveWithCarol() -> ClientSession {
        var session = SessionMachineTests.session()
        SessionMachineTests.live(&session)
        let actions = session.received(
            .presenceState(ServerMessage.PresenceSnapshot(board: "main", sessions: [carol])), now: .zero)
        #expect(actions.contains { if case .emit(.presence) = $0 { true } else { false } })
        #expect(session.presence["s-9"]?.user == "carol")
        return session
    }

    @Test func presenceEndsWhenTheBoardIsNoLongerFollowed() {
        var session = Self.liveWithCarol()
        // The membership was revoked: the server says the board is not (or no longer) there.
        _ = session.received(.error(WireError(.notFound, "no such board", board: "main")), now: .zero)
        #expect(!session.isSubscribed)
        #expect(session.presence.isEmpty, "\(session.presence)")
    }

    @Test func presenceEndsWhenTheReplicaStartsOverFromASnapshot() {
        var session = Self.liveWithCarol()
        _ = session.received(.error(WireError(.resyncRequired, "start over", board: "main")), now: .zero)
        #expect(session.isSubscribing)
        #expect(session.presence.isEmpty, "\(session.presence)")
    }

    @Test func presenceEndsWithTheConnection() {
        var session = Self.liveWithCarol()
        _ = session.closed(SessionConnectionTests.dropped, now: .seconds(1))
        #expect(session.presence.isEmpty)
    }

    @Test func presenceOfABoardNotSubscribedIsIgnored() {
        var session = SessionMachineTests.session()
        _ = SessionMachineTests.connect(&session)
        _ = session.received(.welcome(SessionMachineTests.welcome()), now: .zero)
        // The subscribe failed: connected, with no subscription.
        _ = session.received(
            .error(WireError(.notFound, "no such board", req: .string("sub"), board: "main")), now: .zero)
        #expect(!session.isSubscribing && !session.isSubscribed)
        let actions = session.received(
            .presence(ServerMessage.Presence(board: "main", entry: Self.carol)), now: .zero)
        #expect(session.presence.isEmpty)
        #expect(!actions.contains { if case .emit(.presence) = $0 { true } else { false } })
    }

    /// A session that keeps no presence (a server's web session, whose page keeps the list) still passes every
    /// change on, the full list with the `.state` event, and holds no list itself.
    @Test func aSessionThatKeepsNoPresencePassesItOnAndHoldsNone() {
        var settings = ClientSession.Settings(endpoints: ["fake:1"], token: "t0ken", board: "main", paceOps: false)
        settings.keepsPresence = false
        var session = ClientSession(settings: settings)
        session.nextRandom = 0
        SessionMachineTests.live(&session)
        var events: [PresenceEvent] = []
        func collect(_ actions: [ClientSession.Action]) {
            for case .emit(.presence(let event)) in actions { events.append(event) }
        }
        collect(session.received(.presenceState(ServerMessage.PresenceSnapshot(board: "main", sessions: [Self.carol])), now: .zero))
        let moved = ServerMessage.PresenceEntry(session: "s-9", user: "carol", state: .dragging, card: "c1")
        collect(session.received(.presence(ServerMessage.Presence(board: "main", entry: moved)), now: .zero))
        collect(session.received(.presenceLeft(ServerMessage.PresenceLeft(board: "main", session: "s-9", user: "carol")), now: .zero))
        #expect(events.count == 3)
        #expect(events.first?.sessions["s-9"]?.user == "carol", "the full list comes with the state")
        if case .updated(let entry)? = events.dropFirst().first?.change { #expect(entry.state == .dragging) } else { Issue.record("no update") }
        if case .left(let gone, _)? = events.last?.change { #expect(gone == "s-9") } else { Issue.record("no leave") }
        #expect(session.presence.isEmpty, "nothing kept: \(session.presence)")
    }
}
