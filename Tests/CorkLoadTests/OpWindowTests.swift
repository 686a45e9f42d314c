import Testing

@testable import cork_load

/// The publisher's loop decisions without I/O: what is sent when, and when the loop sleeps, reads or stops.
@Suite struct OpWindowTests {
    func window(_ size: Int, intervalNs: UInt64) -> OpWindow {
        OpWindow(
            window: size, intervalNs: intervalNs,
            source: OpSource(boards: ["b"], mix: .standard, run: "t", publisher: 0, cardsPerBoard: 10))
    }

    @Test func aPacedLoopSleepsUntilTheNextSlotInsteadOfWaitingForALine() {
        var paced = window(64, intervalNs: 10)
        #expect(paced.due(now: 0, sendEnd: 100).map(\.mut) == [1])
        #expect(paced.step(now: 0, sendEnd: 100) == .read)
        #expect(paced.acked(1) == 0)
        // Answered before the next slot: nothing may go yet, and no line will come, so the loop sleeps.
        #expect(paced.due(now: 5, sendEnd: 100).isEmpty)
        #expect(paced.step(now: 5, sendEnd: 100) == .sleep(until: 10))
        // The slot passed while the loop was busy: `due` sends at once, and the loop reads.
        #expect(paced.due(now: 17, sendEnd: 100).map(\.mut) == [2])
        #expect(paced.step(now: 17, sendEnd: 100) == .read)
        #expect(paced.acked(2) == 17)
        // Past the end with nothing in flight: done.
        #expect(paced.due(now: 100, sendEnd: 100).isEmpty)
        #expect(paced.step(now: 100, sendEnd: 100) == .done)
    }

    @Test func aClosedLoopKeepsItsWindowFullAndDrainsAtTheEnd() {
        var closed = window(3, intervalNs: 0)
        #expect(closed.due(now: 0, sendEnd: 50).map(\.mut) == [1, 2, 3])
        #expect(closed.due(now: 1, sendEnd: 50).isEmpty)
        #expect(closed.acked(2) == 0)
        #expect(closed.due(now: 2, sendEnd: 50).map(\.mut) == [4])
        // After the end nothing more is sent, and the loop reads until every op is answered.
        #expect(closed.acked(1) == 0)
        #expect(closed.due(now: 60, sendEnd: 50).isEmpty)
        #expect(closed.step(now: 60, sendEnd: 50) == .read)
        let refused = closed.rejected(3, retryAfterMs: nil, now: 60)
        #expect(refused)
        #expect(closed.acked(4) == 2)
        #expect(closed.step(now: 61, sendEnd: 50) == .done)
    }
}
