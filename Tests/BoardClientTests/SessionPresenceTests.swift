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
}
