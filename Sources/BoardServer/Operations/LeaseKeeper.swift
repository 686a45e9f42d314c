import BoardStore
import Logging

/// Whether this node does one kind of work that one node at a time does for all (a ``LeaseName``): always with a
/// store only this node opens; with a ``SharedStore``, while it holds that lease. The lease is checked each time
/// it is asked about and taken when free, so when its holder dies or loses the database, another node takes over
/// at its next look.
struct LeaseKeeper {
    let name: LeaseName
    let logger: Logger
    private var lease: (any Lease)?
    /// Asked for every few seconds: a database outage is logged when it starts, about once a minute, and when it ends.
    private let takeLog: RetryLog

    init(_ name: LeaseName, logger: Logger) {
        self.name = name
        self.logger = logger
        takeLog = RetryLog("cannot take the \(name) lease", recovered: "the \(name) lease can be asked for again")
    }

    /// Whether this node does the work now: always when no other node shares the store (`shared` nil).
    mutating func holds(_ shared: (any SharedStore)?) async -> Bool {
        guard let shared else { return true }
        if let held = lease {
            if await held.isHeld() { return true }
            await held.release()
            lease = nil
            logger.warning("\(name) lease lost (the database connection holding it is gone); another node may take it")
        }
        do {
            lease = try await shared.takeLease(name)
            takeLog.worked(logger)
        } catch {
            takeLog.failed(error, logger)
            return false
        }
        if lease != nil { logger.info("this node took the \(name) lease: it does that work for every node") }
        return lease != nil
    }

    /// Lets go of the lease, if held.
    mutating func release() async {
        await lease?.release()
        lease = nil
    }
}
