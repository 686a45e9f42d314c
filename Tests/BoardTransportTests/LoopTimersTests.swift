@testable import BoardTransport
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOPosix
import Testing

/// `LoopTimer` on its loop's shared schedule (`LoopTimers`): deadlines in order, cancel before and after, the
/// schedule's storage shrinking and the schedule leaving with its last timer.
@Suite("LoopTimers")
struct LoopTimersTests {
    @Test("timers run at their deadlines, in order, each once; a cancelled one never runs")
    func deadlinesInOrder() {
        let loop = EmbeddedEventLoop()
        let order = NIOLockedValueBox<[Int]>([])
        var ran: [Int] { order.withLockedValue { $0 } }
        let delays = [50, 10, 30, 20, 40]
        let timers = delays.map { delay in
            LoopTimer.schedule(on: loop, in: .milliseconds(Int64(delay))) { order.withLockedValue { $0.append(delay) } }
        }
        timers[3].cancel()  // the 20 ms one
        #expect(LoopTimers.existing(on: loop)?.count == 4)
        loop.advanceTime(by: .milliseconds(29))
        #expect(ran == [10])
        loop.advanceTime(by: .milliseconds(1))
        #expect(ran == [10, 30])
        loop.advanceTime(by: .seconds(1))
        #expect(ran == [10, 30, 40, 50])
        timers[0].cancel()  // after it ran: nothing happens
        #expect(LoopTimers.existing(on: loop) == nil, "no timer armed, no schedule")
    }

    @Test("a timer armed again moves; the schedule shrinks as timers go and leaves with the last")
    func rearmShrinkAndLeave() throws {
        let loop = EmbeddedEventLoop()
        var runs = 0
        let timers = (0..<1_000).map { _ in LoopTimer(on: loop) { runs += 1 } }
        for (index, timer) in timers.enumerated() { timer.arm(at: loop.now + .seconds(Int64(10 + index % 7))) }
        let schedule = try #require(LoopTimers.existing(on: loop))
        let full = schedule.capacity
        timers[0].arm(at: loop.now + .seconds(1))  // moved earlier
        loop.advanceTime(by: .seconds(1))
        #expect(runs == 1)
        for timer in timers.dropFirst(5) { timer.cancel() }
        #expect(schedule.count == 4)
        #expect(schedule.capacity < full / 8, "capacity \(schedule.capacity) of \(full)")
        loop.advanceTime(by: .seconds(20))
        #expect(runs == 5)
        #expect(LoopTimers.existing(on: loop) == nil)
    }

    @Test("scheduled and cancelled from other threads: each timer either runs once or not at all")
    func fromOtherThreads() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let ran = NIOLockedValueBox<[Int]>([])
        let timers = (0..<200).map { index in
            LoopTimer.schedule(on: loop, in: .milliseconds(20)) { ran.withLockedValue { $0.append(index) } }
        }
        for index in stride(from: 0, to: 200, by: 2) { timers[index].cancel() }
        try await Task.sleep(for: .milliseconds(300))
        let done = try await loop.submit { LoopTimers.existing(on: loop) == nil }.get()
        #expect(ran.withLockedValue { $0.sorted() } == Array(stride(from: 1, to: 200, by: 2)))
        #expect(done, "the schedule left with its last timer")
        try await group.shutdownGracefully()
    }

    final class Held: Sendable {}

    @Test("cancelled off the loop, a timer lets go of its action at once; its entry leaves at its deadline")
    func cancelOffTheLoop() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        var held: Held? = Held()
        weak var watched = held
        // Far off, so that a loaded machine cannot run it before the checks.
        let distant = LoopTimer.schedule(on: loop, in: .seconds(600)) { [held] in _ = held }
        held = nil
        try await loop.submit {}.get()  // armed by now
        #expect(watched != nil, "the armed timer's action holds it")
        distant.cancel()  // from this task's thread, not the loop's
        #expect(watched == nil, "dropped at once, not at the deadline")
        // Its empty entry stays until the deadline; one cancelled the same way with a near one leaves the schedule
        // empty once both are gone (the distant one taken out on the loop, where cancel removes it).
        let near = LoopTimer.schedule(on: loop, in: .milliseconds(50)) {}
        near.cancel()
        try await loop.submit { distant.cancel() }.get()
        // Polled, not slept: on a loaded machine the loop may run the near deadline late.
        var empty = false
        let deadline = ContinuousClock.now + .seconds(30)
        while !empty, ContinuousClock.now < deadline {
            empty = try await loop.submit { LoopTimers.existing(on: loop) == nil }.get()
            if !empty { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(empty, "the empty entries left once both deadlines passed")
        try await group.shutdownGracefully()
    }
}
