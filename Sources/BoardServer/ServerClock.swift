import BoardCore
import Foundation

/// Where the server's notion of "now" comes from; tests supply their own.
public protocol ServerClock: Sendable {
    /// The current time.
    func now() -> Timestamp
}

/// The wall clock.
public struct WallClock: ServerClock {
    /// Makes the wall clock.
    public init() {}

    /// The current wall-clock time in milliseconds.
    public func now() -> Timestamp { Timestamp(milliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))) }
}
