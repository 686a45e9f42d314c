import BoardWire
import NIOConcurrencyHelpers
import Synchronization

/// The settings a running server takes without a restart (`corkd` applies them on SIGHUP): the op rate, the
/// connections per user, and how webhooks are delivered. Empty until the first change, so a server reads its
/// ``ServerConfiguration`` as it was built.
///
/// Read where each setting is used: a board on its next op, the directory on the next connection, a session in the
/// next `welcome`, a webhook on its next delivery. One reference, shared by every copy of the configuration.
public final class LiveSettings: Sendable {
    /// What has changed since start; nil fields keep the configuration's value.
    public struct Overrides: Sendable, Equatable {
        public var rateOpsPerS: Int?
        public var rateBurst: Int?
        public var connectionsPerUser: Int?
        public var hooks: HookSettings?

        public init(rateOpsPerS: Int? = nil, rateBurst: Int? = nil, connectionsPerUser: Int? = nil, hooks: HookSettings? = nil) {
            self.rateOpsPerS = rateOpsPerS
            self.rateBurst = rateBurst
            self.connectionsPerUser = connectionsPerUser
            self.hooks = hooks
        }
    }

    private let overrides = NIOLockedValueBox(Overrides())
    /// Bumped on each change: a board compares it per op (one atomic load) and reads the rate again when it moved.
    private let changes = Atomic<UInt64>(0)

    public init() {}

    /// Replaces the overrides; each reader picks them up at its next use.
    public func set(_ new: Overrides) {
        overrides.withLockedValue { $0 = new }
        changes.add(1, ordering: .releasing)
    }

    public var current: Overrides { overrides.withLockedValue { $0 } }

    var generation: UInt64 { changes.load(ordering: .acquiring) }
}

extension ServerConfiguration {
    /// The limits as they are now: the configuration's, with the live overrides.
    public var currentLimits: WireLimits {
        guard live.generation > 0 else { return limits }
        let now = live.current
        var limits = self.limits
        if let rate = now.rateOpsPerS { limits.rateOpsPerS = rate }
        if let burst = now.rateBurst { limits.rateBurst = burst }
        if let connections = now.connectionsPerUser { limits.connectionsPerUser = connections }
        return limits
    }

    /// The webhook settings as they are now.
    public var currentHooks: HookSettings {
        guard live.generation > 0 else { return hooks }
        return live.current.hooks ?? hooks
    }
}
