/// Holds every client at the start line until all have connected, then hands them the timeline.
actor StartGate {
    private var timeline: Timeline?
    private var waiting: [CheckedContinuation<Timeline, Never>] = []

    /// Waits for `open` and returns the timeline.
    func awaitStart() async -> Timeline {
        if let timeline { return timeline }
        return await withCheckedContinuation { waiting.append($0) }
    }

    /// The timeline, if the run has started.
    func current() -> Timeline? { timeline }

    /// Starts the run.
    func open(_ timeline: Timeline) {
        self.timeline = timeline
        for waiter in waiting { waiter.resume(returning: timeline) }
        waiting = []
    }
}
