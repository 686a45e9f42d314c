import BoardWire
import BoardCore
import BoardStore
import Foundation
import Logging

/// What `corkd invite`, `corkd revoke` and `corkd board` do to a store, whether or not a server runs on it.
///
/// A running server holds the serving lock (`ServingLock`: the data directory's `flock` for SQLite, the database's
/// advisory lock, shared by every node, for PostgreSQL). When the tool cannot take it, it queues its
/// commands in the store and waits, bounded, until the server has applied each and recorded the outcome; when it
/// can, no server runs, and it applies the commands to the store itself while holding the lock. Either way a
/// command has taken effect (or failed, with a reason) when `apply` returns.
public struct Administration: Sendable {
    /// The data directory (`listen.json`, the certificate).
    public let directory: URL
    /// Where the store is.
    public let location: StoreLocation
    /// The store.
    public let store: any AdminStore
    /// Held while no server runs (the commands are applied here); nil when a server runs and applies them.
    let lock: ServingLock?
    let logger: Logger

    /// Whether a server runs on the directory (it applies the commands).
    public var serverIsRunning: Bool { lock == nil }

    /// Opens an existing store (by default the data directory's); a store where no server has started yet is
    /// refused (the first start creates the owner and the board `main`; a store made by a tool would stop that
    /// happening).
    public static func open(
        _ directory: URL, store location: StoreLocation = .dataDirectory, logger: Logger
    ) async throws(AdminFailure) -> Administration {
        let firstStartNeeded = "start corkd there once first; the first start creates the store, the board main and its owner"
        if location == .dataDirectory {
            // A directory this user may not enter hides the store: say so, not that there is none.
            if let problem = DataDirectory.enterProblem(directory) { throw AdminFailure(.failed, problem) }
            let file = directory.appendingPathComponent(SQLiteStore.fileName).path
            guard FileManager.default.fileExists(atPath: file) else {
                if let damaged = FirstStart.missingStore(in: directory) { throw AdminFailure(.failed, damaged) }
                throw AdminFailure(
                    .failed, "no store in \(directory.path) (\(SQLiteStore.fileName) is missing): \(firstStartNeeded)")
            }
        }
        if let problem = DataDirectory.ownershipProblem(directory) { throw AdminFailure(.failed, problem) }
        let lock: ServingLock?
        do {
            lock = try await location.tryExclusiveLock(directory: directory, logger: logger)
        } catch {
            throw AdminFailure(.failed, error.message)
        }
        let store: any AdminStore
        do {
            // Without the lock a server serves the store: this process is its guest.
            store = try await location.open(directory: directory, eventJSON: nil, guest: lock == nil, logger: logger)
        } catch {
            await lock?.release()
            throw AdminFailure(.failed, "cannot open the store in \(location.name(directory: directory)): \(error.message)")
        }
        let administration = Administration(directory: directory, location: location, store: store, lock: lock, logger: logger)
        if case .postgres(let database) = location {
            let empty: Bool
            do {
                empty = try await store.boards().isEmpty
            } catch {
                await administration.close()
                throw .store(error)
            }
            if empty {
                await administration.close()
                throw AdminFailure(.failed, "no board in \(database): \(firstStartNeeded)")
            }
        }
        return administration
    }

    /// Applies `commands` in order and returns each one's failure (nil: applied).
    ///
    /// With a server running they are queued in one transaction and this waits until the server has applied all
    /// of them, at most `wait` (then `failed`, naming how many are still queued: the server will still apply them).
    /// Without one they are applied to the store here, with `members_max` as the server last enforced it.
    public func apply(_ commands: [AdminCommand], wait: Duration, now: Timestamp) async throws(AdminFailure) -> [AdminFailure?] {
        guard serverIsRunning else { return await direct(commands, now: now) }
        let ids: [Int64]
        do {
            ids = try await store.enqueue(commands, now: now)
        } catch {
            throw .store(error)
        }
        let deadline = ContinuousClock.now + wait
        while true {
            let outcomes: [Int64: AdminOutcome]
            do {
                outcomes = try await store.outcomes(ids)
            } catch {
                throw .store(error)
            }
            let pending = ids.indices.filter { outcomes[ids[$0]] == .pending }
            if pending.isEmpty { return ids.map { outcomes[$0]?.failure } }
            // The lock was held by another admin command, or the server has stopped since: nobody will apply what
            // is still queued, so this command does, holding the lock.
            if let lock = try? await location.tryExclusiveLock(directory: directory, logger: logger) {
                let results = await direct(pending.map { commands[$0] }, now: now)
                do {
                    try await store.finish(zip(pending, results).map { (ids[$0], $1) })
                } catch {
                    await lock.release()
                    throw .store(error)
                }
                await lock.release()
                var all = ids.map { outcomes[$0]?.failure }
                for (index, result) in zip(pending, results) { all[index] = result }
                return all
            }
            if ContinuousClock.now >= deadline {
                throw AdminFailure(
                    .failed,
                    "the server running on \(location.name(directory: directory)) did not apply \(pending.count) of \(ids.count) command(s) "
                        + "within \(wait.components.seconds) s; they stay queued and apply when it gets to them (is it "
                        + "stopped or overloaded?)")
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Applies the commands to the store here (the caller holds the lock), with `members_max` as the server last
    /// enforced it.
    private func direct(_ commands: [AdminCommand], now: Timestamp) async -> [AdminFailure?] {
        let membersMax = ListenRecord.read(in: directory)?.membersMax ?? Limits.membersDefault
        return await DirectAdmin(store: store, membersMax: membersMax, snapshotInterval: ServerConfiguration().snapshotInterval)
            .apply(commands, now: now)
    }

    /// Closes the store and lets go of the lock.
    public func close() async {
        try? await store.close()
        await lock?.release()
    }
}
