import BoardClient
import BoardCore
import BoardWire
import Testing

/// The client's events carry the server's `reject` and presence entries as they came: one type each, re-exported
/// by `BoardClient`, not a mirror copied field by field that could drift from the wire.
@Suite struct ServerFactsTests {
    @Test func aRejectionIsTheServersRejectItself() {
        #expect(ObjectIdentifier(OpRejection.self) == ObjectIdentifier(ServerMessage.Reject.self))
    }

    @Test func aPresenceEntryIsTheServersEntryItself() {
        #expect(ObjectIdentifier(PresenceEntry.self) == ObjectIdentifier(ServerMessage.PresenceEntry.self))
    }

    @Test func theRejectedEventCarriesTheRejectLineUnchanged() throws {
        var session = SessionMachineTests.session()
        SessionMachineTests.live(&session)
        let (mut, _) = try SessionMachineTests.submit(&session, .editCard(EditCard(card: "c1", title: "Mine")))
        let reject = ServerMessage.Reject(
            board: "main", mut: mut, code: .rejected(.conflict), message: "changed meanwhile",
            current: .object(["seq": .int(3)]))
        let actions = session.received(.reject(reject), now: .zero)
        let events = actions.compactMap { action -> RejectedOp? in
            if case .emit(.rejected(let rejected)) = action { return rejected }
            return nil
        }
        #expect(events.count == 1)
        #expect(events.first?.reject.board == reject.board)
        #expect(events.first?.reject.current == reject.current)
    }
}
