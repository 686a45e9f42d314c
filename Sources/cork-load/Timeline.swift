/// The phases of a run, as instants on `NIODeadline`'s clock (nanoseconds).
struct Timeline: Sendable {
    /// Load starts.
    var start: UInt64
    /// Measurement starts (after the warm-up).
    var measureStart: UInt64
    /// No op is sent from here on; idle connections close.
    var sendEnd: UInt64

    init(now: UInt64, warmup: Int, duration: Int) {
        start = now
        measureStart = now + UInt64(warmup) * 1_000_000_000
        sendEnd = measureStart + UInt64(duration) * 1_000_000_000
    }

    /// Whether `instant` falls in the measured window.
    func measures(_ instant: UInt64) -> Bool { instant >= measureStart && instant < sendEnd }
}
