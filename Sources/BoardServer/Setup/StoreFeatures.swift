import BoardStore

/// What a store can do beyond ``BoardStore``, given to the server by whoever opened it (who knows its type), so the
/// server never asks a store what it is.
///
/// SQLite has none of these; PostgreSQL, shared by several nodes, has all three.
public struct StoreFeatures: Sendable {
    /// Several nodes serve the store: leases, board records and the admin queue's followers.
    public var shared: (any SharedStore)?
    /// Other nodes' commits are announced (LISTEN/NOTIFY).
    public var heads: (any HeadWatching)?
    /// Presence is relayed between nodes.
    public var presence: (any PresenceBus)?

    /// A store this node alone serves.
    public static let none = StoreFeatures()

    public init(shared: (any SharedStore)? = nil, heads: (any HeadWatching)? = nil, presence: (any PresenceBus)? = nil) {
        self.shared = shared
        self.heads = heads
        self.presence = presence
    }

    /// Every feature of a store shared by several nodes.
    public static func sharedBy<Store: SharedStore & HeadWatching & PresenceBus>(_ store: Store) -> StoreFeatures {
        StoreFeatures(shared: store, heads: store, presence: store)
    }
}
