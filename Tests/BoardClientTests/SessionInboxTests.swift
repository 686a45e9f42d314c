import BoardClient
import BoardCore
import BoardWire
import Testing

/// The user's inbox in the session machine: pages answer their request, pushes become ``ClientEvent/inbox(_:)``
/// events whatever board is followed (or none), and the unread count follows what the server last said.
@Suite struct SessionInboxTests {
    static func entry(_ id: Int64, board: BoardID = "main", card: CardID? = "c1", kind: InboxEntry.Kind = .mention)
        -> InboxEntry
    {
        InboxEntry(
            id: id, user: "bob", board: board, seq: UInt64(id), card: card, kind: kind, actor: "alice",
            at: Timestamp(milliseconds: 1_767_225_600_000), text: "#1 First: @bob look")
    }

    /// The inbox events of `actions`, in order.
    static func inboxEvents(_ actions: [ClientSession.Action]) -> [InboxEvent] {
        actions.events.compactMap { if case .inbox(let event) = $0 { event } else { nil } }
    }

    @Test func anInboxPageAnswersItsRequestAndSetsTheUnreadCount() throws {
        var session = SessionMachineTests.session()
        _ = SessionMachineTests.connect(&session)
        let (req, early) = try session.request {
            .inbox(ClientMessage.InboxRequest(req: $0, unread: true, limit: 20))
        }
        #expect(early.isEmpty, "sent before the welcome")
        let welcomed = session.received(.welcome(SessionMachineTests.welcome()), now: .zero)
        #expect(welcomed.sent.contains(.inbox(ClientMessage.InboxRequest(req: req, unread: true, limit: 20))))
        #expect(session.inboxUnread == nil)

        let page = ServerMessage.InboxPage(req: req, entries: [Self.entry(2), Self.entry(1)], unread: 7)
        let answered = session.received(.inbox(page), now: .zero)
        guard case .answer(req, .inbox(let got)) = answered.resolutions.first else {
            Issue.record("the page did not answer the request: \(answered.resolutions)")
            return
        }
        #expect(got.entries.map(\.id) == [2, 1])
        #expect(session.inboxUnread == 7)
        #expect(Self.inboxEvents(answered).isEmpty, "a page is an answer, not an event")
        // Answered: not sent again after a reconnect.
        _ = session.closed(SessionConnectionTests.dropped, now: .seconds(1))
        _ = session.timerFired(now: .seconds(2))
        _ = SessionMachineTests.connect(&session, now: .seconds(2))
        let again = session.received(.welcome(SessionMachineTests.welcome()), now: .seconds(2))
        #expect(!again.sent.contains { if case .inbox = $0 { true } else { false } })
    }

    @Test func aMarkReadRequestIsAnsweredByOk() throws {
        var session = SessionMachineTests.session()
        SessionMachineTests.live(&session)
        let (req, sent) = try session.request { .readInbox(ClientMessage.InboxRead(req: $0, ids: [3, 4])) }
        #expect(sent.sent == [.readInbox(ClientMessage.InboxRead(req: req, ids: [3, 4]))])
        let answered = session.received(.ok(ServerMessage.Ok(req: req)), now: .zero)
        guard case .answer(req, .ok) = answered.resolutions.first else {
            Issue.record("not answered: \(answered.resolutions)")
            return
        }
    }

    /// Pushes are the user's: they come while a board is followed, for entries of any board.
    @Test func aNewEntryIsAnEventWithTheUnreadCount() {
        var session = SessionMachineTests.session()
        SessionMachineTests.live(&session)
        let elsewhere = Self.entry(9, board: "other", card: "x7", kind: .assigned)
        let actions = session.received(.inboxEntry(ServerMessage.InboxNew(entry: elsewhere, unread: 3)), now: .zero)
        #expect(Self.inboxEvents(actions) == [.entry(elsewhere, unread: 3)])
        #expect(actions.updates.isEmpty)
        #expect(actions.sent.isEmpty)
        #expect(session.inboxUnread == 3)
        #expect(session.isSubscribed, "the subscription is untouched")
    }

    @Test func entriesReadElsewhereAreAnEventWithTheUnreadCountLeft() {
        var session = SessionMachineTests.session()
        SessionMachineTests.live(&session)
        _ = session.received(.inboxEntry(ServerMessage.InboxNew(entry: Self.entry(5), unread: 4)), now: .zero)
        let actions = session.received(.inboxRead(ServerMessage.InboxMarked(ids: [5, 2], unread: 2)), now: .zero)
        #expect(Self.inboxEvents(actions) == [.read(ids: [5, 2], unread: 2)])
        #expect(Self.inboxEvents(actions).first?.unread == 2)
        #expect(session.inboxUnread == 2)
    }

    /// A client without a board (or whose subscribe failed) still hears its inbox.
    @Test func pushesComeWithoutASubscription() {
        var session = ClientSession(settings: .init(endpoints: ["fake:1"], token: "t0ken", board: nil, paceOps: false))
        _ = SessionMachineTests.connect(&session)
        _ = session.received(.welcome(SessionMachineTests.welcome()), now: .zero)
        #expect(!session.isSubscribing && !session.isSubscribed)
        let entry = Self.entry(1, card: nil)
        let actions = session.received(.inboxEntry(ServerMessage.InboxNew(entry: entry, unread: 1)), now: .zero)
        #expect(Self.inboxEvents(actions) == [.entry(entry, unread: 1)])
    }

    @Test func nothingIsHeardOnceStopped() {
        var session = SessionMachineTests.session()
        SessionMachineTests.live(&session)
        _ = session.shutdown()
        let actions = session.received(.inboxEntry(ServerMessage.InboxNew(entry: Self.entry(1), unread: 1)), now: .zero)
        #expect(actions.isEmpty)
        #expect(session.inboxUnread == nil)
    }
}
