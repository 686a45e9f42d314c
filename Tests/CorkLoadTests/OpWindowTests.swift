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
        #expect(paced.due(now: 3, sendEnd: 100).map(\.mut) == [1])
        #expect(paced.step(now: 3, sendEnd: 100) == .read)
        #expect(paced.acked(1) == 3)
        // Answered before the next slot (13): nothing may go yet, and no line will come, so the loop sleeps.
        #expect(paced.due(now: 8, sendEnd: 100).isEmpty)
        #expect(paced.step(now: 8, sendEnd: 100) == .sleep(until: 13))
        // The loop got there late: the op goes at once, and its latency will count from its slot.
        #expect(paced.due(now: 17, sendEnd: 100).map(\.dueNs) == [13])
        #expect(paced.step(now: 17, sendEnd: 100) == .read)
        #expect(paced.acked(2) == 13)
        // Past the end with nothing in flight: done.
        #expect(paced.due(now: 100, sendEnd: 100).isEmpty)
        #expect(paced.step(now: 100, sendEnd: 100) == .done)
    }

    @Test func slotsMissedWhileWaitingAreSentNotSkipped() {
        var paced = window(64, intervalNs: 10)
        #expect(paced.due(now: 0, sendEnd: 100).count == 1)
        // A slow answer kept the loop waiting past three slots: all three go now, each stamped with its own slot.
        #expect(paced.due(now: 35, sendEnd: 100).map(\.dueNs) == [10, 20, 30])
        #expect(paced.acked(3) == 20)
        // No slot at or after the end of sending.
        #expect(paced.due(now: 99, sendEnd: 100).map(\.dueNs) == [40, 50, 60, 70, 80, 90])
        #expect(paced.due(now: 120, sendEnd: 100).isEmpty)
    }

    /// A `rate_limited` reject's `retry_after_ms` holds the client back: the slots in the hold are not sent (sending
    /// them after it would only be refused again) but counted, and the schedule goes on on its grid.
    @Test func slotsTheServerHeldBackAreCountedAndTheScheduleKeepsItsGrid() {
        let ms: UInt64 = 1_000_000
        var paced = window(64, intervalNs: 10 * ms)
        #expect(paced.due(now: 0, sendEnd: 100 * ms).map(\.mut) == [1])
        let first = paced.rejected(1, retryAfterMs: 35, now: 5 * ms, sendEnd: 100 * ms)
        #expect(first)
        #expect(paced.heldBack == 3, "the slots at 10, 20 and 30 ms")
        #expect(paced.due(now: 39 * ms, sendEnd: 100 * ms).isEmpty)
        #expect(paced.due(now: 40 * ms, sendEnd: 100 * ms).map(\.dueNs) == [40 * ms])
        // A hold past the end of sending counts only the slots before it.
        let second = paced.rejected(2, retryAfterMs: 500, now: 45 * ms, sendEnd: 100 * ms)
        #expect(second)
        #expect(paced.heldBack == 3 + 5, "50, 60, 70, 80 and 90 ms")
    }

    /// Slots the window never let go before the end of sending (the server too slow for the rate) are counted.
    @Test func slotsTheWindowNeverLetGoAreCounted() {
        var paced = window(2, intervalNs: 10)
        #expect(paced.due(now: 0, sendEnd: 100).count == 1)
        #expect(paced.due(now: 15, sendEnd: 100).count == 1, "the window of 2 is full now")
        #expect(paced.due(now: 99, sendEnd: 100).isEmpty)
        #expect(paced.unsentSlots(sendEnd: 100) == 8, "20, 30, … 90")
        var closed = window(2, intervalNs: 0)
        _ = closed.due(now: 0, sendEnd: 100)
        #expect(closed.unsentSlots(sendEnd: 100) == 0)
    }

    @Test func publishersOfARunAreSpreadOverTheInterval() {
        var second = OpWindow(
            window: 64, intervalNs: 40, phaseNs: 10,
            source: OpSource(boards: ["b"], mix: .standard, run: "t", publisher: 1, cardsPerBoard: 10))
        #expect(second.due(now: 0, sendEnd: 100).isEmpty)
        #expect(second.step(now: 0, sendEnd: 100) == .sleep(until: 10))
        #expect(second.due(now: 10, sendEnd: 100).map(\.dueNs) == [10])
        #expect(second.due(now: 95, sendEnd: 100).map(\.dueNs) == [50, 90])
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
