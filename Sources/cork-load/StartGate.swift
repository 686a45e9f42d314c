/// How a run starts: the timeline, and how many subscribers of each board are connected (a publisher's op on board
/// `b` is fanned out once `subscribers[b]` subscribers have its delta).
struct RunStart: Sendable {
    var timeline: Timeline
    var subscribers: [Int]
}

/// Holds every client at the start line until all have connected, then hands them the start.
actor StartGate {
    private var start: RunStart?
    private var waiting: [CheckedContinuation<RunStart, Never>] = []

    /// Waits for `open` and returns the start.
    func awaitStart() async -> RunStart {
        if let start { return start }
        return await withCheckedContinuation { waiting.append($0) }
    }

    /// The timeline, if the run has started.
    func current() -> Timeline? { start?.timeline }

    /// Starts the run.
    func open(_ start: RunStart) {
        self.start = start
        for waiter in waiting { waiter.resume(returning: start) }
        waiting = []
    }
}
