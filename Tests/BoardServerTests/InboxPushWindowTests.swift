import BoardCore
import Testing
@testable import BoardServer

/// Which stored inbox entries a node still has to send its sessions, when ids can commit out of order.
@Suite struct InboxPushWindowTests {
    static func entries(_ ids: Int64...) -> [InboxEntry] {
        ids.map { InboxEntry(id: $0, user: "alice", board: "main", seq: 1, card: nil, kind: .mention, actor: "bob", at: Timestamp(milliseconds: 0), text: "@alice") }
    }

    @Test func withSeveralNodesAnIdThatCommitsLateIsSentOnceAndNothingFromBeforeTheStart() {
        var window = InboxPushWindow(newest: 40, shared: true)
        #expect(window.readFrom == 40, "what was there at the start is not sent")
        // 41 and 43 commit; 42 (another node's transaction) is still open.
        #expect(window.unsent(Self.entries(41, 43)).map(\.id) == [41, 43])
        #expect(window.readFrom == 40, "the next look reads again below the newest")
        // 42 commits: read with the others again, only it goes out.
        #expect(window.unsent(Self.entries(41, 42, 43)).map(\.id) == [42])
        #expect(window.unsent(Self.entries(41, 42, 43, 44)).map(\.id) == [44])
        #expect(window.unsent(Self.entries(41, 42, 43, 44)).isEmpty)
    }

    @Test func theLookbackIsBoundedAndOneNodeReadsOnlyWhatIsNew() {
        var shared = InboxPushWindow(newest: 0, shared: true)
        _ = shared.unsent(Self.entries(5_000))
        #expect(shared.readFrom == 5_000 - shared.lookback)
        #expect(shared.unsent(Self.entries(5_000 - shared.lookback, 4_900)).map(\.id) == [4_900], "below the lookback: never")
        var single = InboxPushWindow(newest: 7, shared: false)
        #expect(single.unsent(Self.entries(8, 9)).map(\.id) == [8, 9])
        #expect(single.readFrom == 9)
    }
}
