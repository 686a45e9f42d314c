import BoardCore
import Foundation

/// Where the server's notion of "now" comes from; tests supply their own.
public protocol ServerClock: Sendable {
    /// The current time.
    func now() -> Timestamp

    /// Lets `milliseconds` of this clock's time pass before the caller goes on (a session that answered
    /// `rate_limited` reads nothing meanwhile, `Session.readPauseMs`). A real clock sleeps; a test clock whose time
    /// moves only when the test moves it returns at once.
    func pause(milliseconds: Int64) async
}

extension ServerClock {
    /// Sleeps (cancellation ends the pause early).
    public func pause(milliseconds: Int64) async {
        try? await Task.sleep(for: .milliseconds(milliseconds))
    }
}

/// The wall clock.
public struct WallClock: ServerClock {
    /// Makes the wall clock.
    public init() {}

    /// The current wall-clock time in milliseconds.
    public func now() -> Timestamp { Timestamp(milliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))) }
}
