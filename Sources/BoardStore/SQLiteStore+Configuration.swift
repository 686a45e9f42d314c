extension SQLiteStore {
    /// How the SQLite store behaves. Every field has a documented default.
    public struct Configuration: Sendable {
        /// How long a statement waits for another connection's lock before it fails with `.busy`
        /// (SQLite `busy_timeout`). Default: 5 seconds.
        public var busyTimeout: Duration
        /// How many snapshots are kept per board; older ones are deleted when a newer one is appended. Default: 2.
        public var snapshotsKept: Int
        /// Testing only: SQLite's `max_page_count` for the writer connection, to simulate a full disk. Default: nil
        /// (SQLite's own limit).
        var maxPageCount: Int?

        /// Makes a configuration; every argument has its documented default.
        public init(busyTimeout: Duration = .seconds(5), snapshotsKept: Int = 2) {
            self.busyTimeout = busyTimeout
            self.snapshotsKept = max(1, snapshotsKept)
            self.maxPageCount = nil
        }

        /// The busy timeout in seconds, as GRDB wants it.
        var busyTimeoutSeconds: Double {
            let (seconds, attoseconds) = busyTimeout.components
            return Double(seconds) + Double(attoseconds) / 1e18
        }
    }
}
