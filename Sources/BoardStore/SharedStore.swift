import BoardCore

/// What a store shared by several nodes (PostgreSQL) adds so that the nodes act as one server: one node at a time
/// applies the admin queue and one delivers the webhooks (each holding a lease), every node learns what the others'
/// commands changed, and a board created or brought back through another node is found by id.
///
/// A store only one node can open (SQLite in its data directory) does not conform: that node is the whole server.
public protocol SharedStore: Sendable {
    /// Takes the lease when no other node holds it; nil when one does (that node does the work).
    func takeLease(_ name: LeaseName) async throws(StoreError) -> (any Lease)?

    /// The highest admin command id so far (0 when the queue was never used): where a starting node begins to
    /// follow the queue.
    func newestCommandID() async throws(StoreError) -> Int64

    /// The admin commands above `id`, oldest first, at most `limit`, each with where it stands.
    func commands(after id: Int64, limit: Int) async throws(StoreError) -> [AdminLogEntry]

    /// The board's record, archived or not; nil if there is no such board.
    func boardRecord(_ id: BoardID) async throws(StoreError) -> BoardRecord?
}

/// The work one node at a time does for all of them.
public enum LeaseName: String, Sendable {
    /// Applying the admin queue (`corkd invite`, `revoke`, `board …`): each command once.
    case admin
    /// Delivering the webhooks: each change once, not once per node.
    case hooks
    /// Deriving users' inbox entries from the boards' changes.
    case inbox
}

/// The right to do one kind of work for every node, held by one node at a time: a node that dies lets go of it.
public protocol Lease: Sendable {
    /// Whether the lease is still held (its connection answers). A lease no longer held is released and taken
    /// again later, possibly by another node.
    func isHeld() async -> Bool

    /// Lets go of the lease.
    func release() async
}

/// One admin command as the queue records it.
public struct AdminLogEntry: Hashable, Sendable {
    /// The command's id (ids only grow).
    public var id: Int64
    /// What was asked.
    public var command: AdminCommand
    /// Where it stands.
    public var outcome: AdminOutcome

    /// Makes an entry.
    public init(id: Int64, command: AdminCommand, outcome: AdminOutcome) {
        self.id = id
        self.command = command
        self.outcome = outcome
    }
}
