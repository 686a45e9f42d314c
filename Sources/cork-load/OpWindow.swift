import NIOCore

/// The closed loop of one client, without I/O or clocks: which ops are in flight, when the next may go, and how
/// each ended. Times are nanoseconds of `NIODeadline.now().uptimeNanoseconds`.
///
/// At most `window` ops are in flight. `mut` starts at 1 and only grows (Protocol.md, `op`), so an op refused with
/// `rate_limited` is never resent under its old `mut` (that would be `stale_mut` once a later one commits): it is
/// counted, and the client sends nothing more until `retry_after_ms` has passed. With `intervalNs` > 0, sends are
/// paced to a fixed schedule, one slot per interval from the first send: a slot the loop reached late (it was
/// waiting for a line) is sent as soon as it can be, never skipped, and the op's latency counts from its slot, not
/// from when it actually went out. Otherwise a slow answer would lower the offered rate and hide its own delay
/// (coordinated omission).
struct OpWindow {
    /// An op sent and not yet answered.
    struct InFlight {
        var mut: UInt64
        /// When it was due: its slot when paced, when it was sent in the closed loop. Latencies count from here.
        var sentNs: UInt64
        /// Index into the source's boards.
        var board: Int
    }

    /// An op to send now.
    struct Due {
        var mut: UInt64
        var op: OpSource.Op
        /// When it was due (see `InFlight.sentNs`).
        var dueNs: UInt64
    }

    let window: Int
    let intervalNs: UInt64
    private(set) var source: OpSource
    private(set) var inflight: [InFlight] = []
    private(set) var nextMut: UInt64 = 1
    /// Nothing is sent before this instant (pacing and `retry_after_ms`).
    private(set) var notBefore: UInt64 = 0
    /// Whether the pacing schedule has started.
    private var scheduled = false
    /// Paced slots not sent because the server held the client back (`retry_after_ms` of a `rate_limited` reject):
    /// sending them after the hold would only be refused again, so they are counted and reported instead.
    private(set) var heldBack = 0

    /// Where in its interval this client's schedule starts: publishers of one run are spread evenly over the
    /// interval, so that together they offer a steady rate instead of bursts of simultaneous ops.
    let phaseNs: UInt64

    init(window: Int, intervalNs: UInt64, phaseNs: UInt64 = 0, source: OpSource) {
        self.window = max(1, window)
        self.intervalNs = intervalNs
        self.phaseNs = intervalNs > 0 ? phaseNs % intervalNs : 0
        self.source = source
    }

    /// The ops to send now, to fill the window; none at or after `sendEnd`.
    mutating func due(now: UInt64, sendEnd: UInt64) -> [Due] {
        var lines: [Due] = []
        if intervalNs > 0, !scheduled {
            // The schedule starts at the first send.
            notBefore = max(notBefore, now + phaseNs)
            scheduled = true
        }
        while inflight.count < window, now < sendEnd, now >= notBefore, notBefore < sendEnd {
            let mut = nextMut
            nextMut += 1
            let op = source.next(mut: mut)
            let dueNs = intervalNs > 0 ? notBefore : now
            inflight.append(InFlight(mut: mut, sentNs: dueNs, board: op.board))
            lines.append(Due(mut: mut, op: op, dueNs: dueNs))
            if intervalNs > 0 { notBefore += intervalNs }
        }
        return lines
    }

    /// What the loop does after sending what `due(now:sendEnd:)` returned for the same `now`.
    enum Step: Equatable {
        /// Sending is over and every op has been answered.
        case done
        /// Nothing is in flight, so no answer will come: sleep until the clock lets the next op go.
        case sleep(until: UInt64)
        /// Wait for the next line (an answer is due).
        case read
    }

    /// The next step, to be asked right after `due` with the same `now`: with nothing in flight before the end of
    /// sending, `due` sent nothing only because the clock held it back, so the loop sleeps instead of waiting for a
    /// line that cannot come. (Deciding this on a later `now` than `due`'s was a bug: the pacing instant could pass in
    /// between, and the loop then waited for a line with nothing in flight, until the drain deadline.)
    func step(now: UInt64, sendEnd: UInt64) -> Step {
        guard inflight.isEmpty else { return .read }
        guard now < sendEnd else { return .done }
        return .sleep(until: min(max(notBefore, now + 1), sendEnd))
    }

    /// Paced slots before `sendEnd` that were never sent: the window stayed full (the server answered too slowly for
    /// the rate) until sending ended. Zero for a closed loop.
    func unsentSlots(sendEnd: UInt64) -> Int {
        guard intervalNs > 0, scheduled, notBefore < sendEnd else { return 0 }
        return Int((sendEnd - notBefore + intervalNs - 1) / intervalNs)
    }

    /// The op `mut` was acknowledged; returns when it was sent (nil for an unknown `mut`).
    mutating func acked(_ mut: UInt64) -> UInt64? {
        guard let i = inflight.firstIndex(where: { $0.mut == mut }) else { return nil }
        source.answered(mut: mut, accepted: true)
        return inflight.remove(at: i).sentNs
    }

    /// The op `mut` was refused; `retryAfterMs` holds the next send back. False for an unknown `mut`.
    mutating func rejected(_ mut: UInt64, retryAfterMs: UInt64?, now: UInt64, sendEnd: UInt64 = .max) -> Bool {
        guard let i = inflight.firstIndex(where: { $0.mut == mut }) else { return false }
        source.answered(mut: mut, accepted: false)
        inflight.remove(at: i)
        guard let retryAfterMs else { return true }
        let until = now + retryAfterMs * 1_000_000
        guard intervalNs > 0, scheduled else {
            notBefore = max(notBefore, until)
            return true
        }
        // The slots from `notBefore` up to the end of the hold are skipped; the next one is on the grid.
        guard until > notBefore else { return true }
        let skipped = (until - notBefore + intervalNs - 1) / intervalNs
        if notBefore < sendEnd { heldBack += Int(min(skipped, (sendEnd - notBefore + intervalNs - 1) / intervalNs)) }
        notBefore += skipped * intervalNs
        return true
    }
}
