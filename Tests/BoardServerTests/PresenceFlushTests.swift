import Testing

@testable import BoardServer

/// How long presence lines wait to be written together (Protocol.md, "presence"): 20 ms on boards of up to 100
/// subscribers, growing by 1 ms per 10 subscribers above that, never above 100 ms.
@Suite struct PresenceFlushTests {
    @Test(arguments: [(0, 20), (1, 20), (100, 20), (110, 21), (600, 70), (1_000, 100), (5_000, 100)])
    func theWindowGrowsWithTheBoardUpTo100Ms(subscribers: Int, milliseconds: Int) {
        #expect(BoardActor.presenceFlushMs(subscribers: subscribers) == milliseconds)
    }
}
