import NIOCore
import Synchronization

/// The connection timers of one event loop (heartbeats, the TLS handshake and `hello` deadlines, the outbox's write
/// deadline), in one min-heap behind one NIO timer.
///
/// NIO keeps an event loop's scheduled tasks in an array that never gives back the capacity of the most it held.
/// With NIO timers per connection (two for the heartbeat, one each for the handshake, `hello` and the write deadline
/// that every write arms), 5,000 connections left 528 KiB per event loop resident after they had all closed
/// (measured with gdb on the release build 16 s after the connections closed). Here each timer is one entry
/// of its loop's heap while it is armed, the heap's storage is rebuilt smaller once it is a quarter full, the loop holds
/// a single NIO timer (armed for the earliest deadline), and the schedule itself goes when its last timer does.
///
/// Only the event loop's own thread touches a schedule or an armed timer; the registry of schedules by loop is the
/// one shared structure, behind a mutex, consulted each time a timer is armed (a lock and a dictionary lookup; a
/// connection arms about once per write burst and once per heartbeat interval).
final class LoopTimers: @unchecked Sendable {  // confined to `loop`; see above
    /// The schedules of the loops that have armed timers, by loop.
    private static let byLoop = Mutex<[ObjectIdentifier: LoopTimers]>([:])

    /// The schedule of `loop`, made on first use (on `loop`).
    static func of(_ loop: any EventLoop) -> LoopTimers {
        byLoop.withLock { schedules in
            if let schedule = schedules[ObjectIdentifier(loop)] { return schedule }
            let schedule = LoopTimers(loop: loop)
            schedules[ObjectIdentifier(loop)] = schedule
            return schedule
        }
    }

    /// The schedule of `loop` if it has one now (tests: it leaves when its last timer does).
    static func existing(on loop: any EventLoop) -> LoopTimers? {
        byLoop.withLock { $0[ObjectIdentifier(loop)] }
    }

    private let loop: any EventLoop
    /// A binary min-heap on `due`; each timer knows its index (`heapIndex`, -1 when not in it).
    private var heap: [LoopTimer] = []
    private var timer: Scheduled<Void>?
    private var timerDue: NIODeadline?
    /// True while `fire` runs the due timers (they leave and may come back; the schedule must not end meanwhile).
    private var firing = false

    private init(loop: any EventLoop) {
        self.loop = loop
    }

    /// Timers armed now (tests).
    var count: Int { heap.count }
    /// Timers the heap's storage has room for (tests: it shrinks once the connections are gone).
    var capacity: Int { heap.capacity }

    /// Puts `entry` in the heap, due at `due`.
    func add(_ entry: LoopTimer, due: NIODeadline) {
        precondition(entry.heapIndex < 0, "a timer is armed once")
        entry.due = due
        entry.heapIndex = heap.count
        heap.append(entry)
        siftUp(heap.count - 1)
        if !firing, timerDue.map({ due < $0 }) ?? true { arm(at: due) }
    }

    /// Takes `entry` out of the heap (a no-op if it is not in it); the last one out ends the schedule.
    func remove(_ entry: LoopTimer) {
        let index = entry.heapIndex
        guard index >= 0 else { return }
        entry.heapIndex = -1
        let last = heap.removeLast()
        if index < heap.count {
            heap[index] = last
            last.heapIndex = index
            siftDown(index)
            siftUp(last.heapIndex)
        }
        if heap.isEmpty {
            if !firing { end() }
        } else if heap.capacity > 64 && heap.count < heap.capacity / 4 {
            // New storage of twice the count (`Array(heap)` would share the old buffer).
            var smaller: [LoopTimer] = []
            smaller.reserveCapacity(heap.count * 2)
            smaller.append(contentsOf: heap)
            heap = smaller
        }
    }

    /// No timer left: the NIO timer goes, and so does the schedule (the next timer on the loop makes another).
    private func end() {
        timer?.cancel()
        timer = nil
        timerDue = nil
        heap = []
        Self.byLoop.withLock { schedules in
            if schedules[ObjectIdentifier(loop)] === self { schedules[ObjectIdentifier(loop)] = nil }
        }
    }

    private func arm(at due: NIODeadline) {
        timer?.cancel()
        timerDue = due
        timer = loop.assumeIsolated().scheduleTask(deadline: due) { [self] in fire() }
    }

    /// Runs every timer that is due, in order of their deadlines.
    private func fire() {
        timer = nil
        timerDue = nil
        let now = loop.now
        firing = true
        while let first = heap.first, first.due <= now {
            remove(first)
            first.run()
        }
        firing = false
        if let first = heap.first { arm(at: first.due) } else { end() }
    }

    private func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].due < heap[parent].due else { return }
            swapAt(child, parent)
            child = parent
        }
    }

    private func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            let right = left + 1
            let smaller = right < heap.count && heap[right].due < heap[left].due ? right : left
            guard heap[smaller].due < heap[parent].due else { return }
            swapAt(smaller, parent)
            parent = smaller
        }
    }

    private func swapAt(_ a: Int, _ b: Int) {
        heap.swapAt(a, b)
        heap[a].heapIndex = a
        heap[b].heapIndex = b
    }
}

/// A timer on its event loop's shared schedule (``LoopTimers``): runs its action on the loop when armed and due.
///
/// A timer can be armed again after it ran (the heartbeat re-arms its own for the next ping or silence deadline);
/// ``cancel()`` disarms it for good and drops the action (and whatever it holds). Arming and running happen on the
/// loop. ``schedule(on:in:_:)`` may be called from anywhere (it hops to the loop to arm), and so may ``cancel()``,
/// which never hops: off the loop it drops the action at once and leaves the empty entry in the heap until its
/// deadline (a session cancels its `hello` deadline from its task; a hop per connection would grow NIO's task queue,
/// which keeps its peak size too).
public final class LoopTimer: @unchecked Sendable {  // heap state confined to `loop`; the action behind a mutex
    let loop: any EventLoop
    /// The action; nil once cancelled (from any thread) or, for a one-shot timer, once it ran.
    private let action: Mutex<Action?>
    /// The action, run only on `loop` (which the callers that make it non-Sendable are on).
    private struct Action: @unchecked Sendable {  // a closure set and taken under the timer's mutex, run on `loop`
        let run: () -> Void
    }
    /// Whether the action is dropped after it ran (``schedule(on:in:_:)``).
    private let once: Bool
    /// When the schedule runs this timer next (set by the schedule).
    var due: NIODeadline = .uptimeNanoseconds(0)
    /// Where this timer is in its schedule's heap; -1 when it is not armed (set by the schedule).
    var heapIndex = -1
    /// Whether the timer is armed (on `loop`; false while its action runs).
    var isArmed: Bool { heapIndex >= 0 }
    private var schedule: LoopTimers?

    /// A timer on `loop` that runs `action` each time it comes due (call on `loop`; arm it with ``arm(at:)``).
    init(on loop: any EventLoop, once: Bool = false, _ action: @escaping () -> Void) {
        self.loop = loop
        self.once = once
        self.action = Mutex(Action(run: action))
    }

    /// Runs `action` on `loop` once, `delay` from now, unless cancelled first. Callable from any thread.
    @discardableResult
    public static func schedule(on loop: any EventLoop, in delay: TimeAmount, _ action: @escaping @Sendable () -> Void) -> LoopTimer {
        let due = loop.now + delay
        let timer = LoopTimer(on: loop, once: true) { action() }
        if loop.inEventLoop {
            timer.arm(at: due)
        } else {
            loop.execute { timer.arm(at: due) }
        }
        return timer
    }

    /// Arms the timer for `due` (on `loop`); a timer already armed moves; a cancelled one stays cancelled.
    func arm(at due: NIODeadline) {
        loop.preconditionInEventLoop()
        guard action.withLock({ $0 != nil }) else { return }
        schedule?.remove(self)
        // The loop's schedule now: the one this timer was on may have ended while it was not armed.
        let schedule = LoopTimers.of(loop)
        self.schedule = schedule
        schedule.add(self, due: due)
    }

    /// Disarms the timer for good and drops its action. Callable from any thread; a no-op after a one-shot timer ran.
    public func cancel() {
        action.withLock { $0 = nil }
        guard loop.inEventLoop else { return }
        schedule?.remove(self)
        schedule = nil
    }

    /// Run by the schedule, which took the timer out of its heap.
    func run() {
        let action = self.action.withLock { action in
            defer { if once { action = nil } }
            return action
        }
        if once { schedule = nil }
        action?.run()
    }
}
