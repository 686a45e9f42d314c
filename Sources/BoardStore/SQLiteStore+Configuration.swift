import BoardCore

extension SQLiteStore {
    /// How the SQLite store behaves. Every field has a documented default.
    public struct Configuration: Sendable {
        /// How long a statement waits for another connection's lock before it fails with `.busy`
        /// (SQLite `busy_timeout`). Default: 5 seconds.
        public var busyTimeout: Duration
        /// How many snapshots are kept per board; older ones are deleted when a newer one is appended. Default: 2.
        public var snapshotsKept: Int
        /// How ops and activity records become the JSON text of the `events` table. Default: nil, Foundation's
        /// `JSONEncoder` with sorted keys; the server plugs in its hand-written wire encoder, which writes the same
        /// JSON tree (keys in encode order) at a fraction of the cost. Either is read back by the same decoder.
        public var eventJSON: (any EventJSON)?
        /// Whether another process may own the file while this store is open (an admin command or a backup while
        /// the server runs): a guest keeps no marks (`SQLiteStore+Marks.swift`) and never checkpoints, so that the
        /// owner's mark stays true. Default: false, the store owns the file.
        public var guest: Bool
        /// Testing only: SQLite's `max_page_count` for the writer connection, to simulate a full disk. Default: nil
        /// (SQLite's own limit).
        var maxPageCount: Int?
        /// Testing only: the log size (pages) at which the writer checkpoints. Default: 1,000, SQLite's own.
        var checkpointPages: Int

        /// Makes a configuration; every argument has its documented default.
        public init(
            busyTimeout: Duration = .seconds(5), snapshotsKept: Int = 2, eventJSON: (any EventJSON)? = nil,
            guest: Bool = false
        ) {
            self.busyTimeout = busyTimeout
            self.guest = guest
            self.eventJSON = eventJSON
            self.snapshotsKept = max(1, snapshotsKept)
            self.maxPageCount = nil
            self.checkpointPages = 1000
        }

        /// The busy timeout in seconds, as GRDB wants it.
        var busyTimeoutSeconds: Double {
            let (seconds, attoseconds) = busyTimeout.components
            return Double(seconds) + Double(attoseconds) / 1e18
        }
    }
}

/// Encodes an event's op and activity as the JSON text the store keeps (see `SQLiteStore.Configuration.eventJSON`).
public protocol EventJSON: Sendable {
    /// The op as a JSON object.
    func op(_ op: Op) -> String
    /// The activity record as a JSON object.
    func activity(_ activity: Activity) -> String
}
