extension TUIModel {
    /// How long one ``TUIMessage/tick`` is, in milliseconds.
    public static let tickMilliseconds = 500

    /// Whether something on screen changes with time (a fading highlight, the reconnect countdown), so the runner
    /// must send ticks. When false it sends none: an idle client uses no CPU.
    public var needsTicks: Bool {
        !highlights.isEmpty || (reconnectSecondsLeft ?? 0) > 0
    }

    /// Whole seconds until the client retries the connection, rounded up, while it waits to; nil otherwise.
    public var reconnectSecondsLeft: Int? {
        guard case .reconnecting = connection, let reconnectAt else { return nil }
        let milliseconds = max(0, reconnectAt - tick) * TUIModel.tickMilliseconds
        return (milliseconds + 999) / 1000
    }

    /// The tick `delay` from now, rounded up to a whole tick.
    func tick(after delay: Duration) -> Int {
        let (seconds, attoseconds) = delay.components
        let milliseconds = max(0, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
        return tick + (milliseconds + TUIModel.tickMilliseconds - 1) / TUIModel.tickMilliseconds
    }
}
