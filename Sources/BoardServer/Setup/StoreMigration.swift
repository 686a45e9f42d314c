import BoardCore
import BoardStore
import Foundation
import Logging

/// `corkd migrate-store`: copies one store into another, empty one (SQLite in a data directory into PostgreSQL)
/// through the store protocols only, then checks every board came across whole.
///
/// Boards keep their id, name, epoch and every event (so clients resume by seq across the move, with their
/// exactly-once marks, which the events carry), the kept snapshots, memberships (in the board state), users with
/// their account roles, token hashes (every invite URL keeps working) and webhooks (with their secrets, cursors and
/// failure state). The admin queue is not copied: commands
/// still queued were never applied, and the tool that queued them has given up waiting.
public struct StoreMigration: Sendable {
    /// What was copied.
    public struct Report: Hashable, Sendable {
        /// Boards copied (archived ones included).
        public var boards = 0
        /// Events copied.
        public var events = 0
        /// Users copied.
        public var users = 0
        /// Tokens copied.
        public var tokens = 0
        /// Webhooks copied, each with its secret and where its delivery stands.
        public var hooks = 0
        /// Each board's content hash, the same in both stores.
        public var hashes: [BoardID: String] = [:]
    }

    /// Copies the SQLite store in `directory` into the PostgreSQL database `target`: both must be idle (no corkd
    /// serves the directory, no node the database; their locks are held for the copy), the target empty.
    public static func copy(
        fromDirectory directory: URL, to target: PostgresLocation, now: Timestamp, logger: Logger
    ) async throws(ServerError) -> Report {
        guard let sourceLock = try DataDirectoryLock.tryAcquire(in: directory) else {
            throw ServerError(.configuration, "a corkd serves \(directory.path): stop it first, so that the copy is whole")
        }
        defer { sourceLock.unlock() }
        let targetLock: ServingLock
        do {
            guard let lock = try await StoreLocation.postgres(target).tryExclusiveLock(directory: directory, logger: logger) else {
                throw ServerError(.configuration, "a corkd node serves \(target): stop every node first")
            }
            targetLock = lock
        }
        let source: SQLiteStore
        let store: PostgresStore
        do {
            source = try await SQLiteStore.open(directory: directory, logger: logger)
        } catch {
            await targetLock.release()
            throw ServerError(.storage, "cannot open the store in \(directory.path): \(error.message)")
        }
        do {
            store = try await PostgresStore.open(target, logger: logger)
        } catch {
            try? await source.close()
            await targetLock.release()
            throw ServerError(.storage, "cannot open \(target): \(error.message)")
        }
        let result: Result<Report, ServerError>
        do {
            result = .success(try await copy(from: source, to: store, now: now, logger: logger))
        } catch {
            result = .failure(error)
        }
        try? await source.close()
        try? await store.close()
        await targetLock.release()
        return try result.get()
    }

    /// Where events are read from, this many at a time.
    static let page = 5_000

    /// Copies everything from `source` into `target`; `.configuration` if the target is not empty, `.storage` if a
    /// store fails or a board's content hash differs after the copy (the message names the boards).
    public static func copy(
        from source: any StoreExport, to target: any StoreImport, now: Timestamp, logger: Logger
    ) async throws(ServerError) -> Report {
        var report = Report()
        do {
            guard try await target.isEmpty() else {
                throw ServerError(
                    .configuration, "the target store is not empty (it has boards, users or tokens): migrate-store only fills an empty one")
            }
            let users = try await source.exportUsers()
            let tokens = try await source.exportTokens()
            try await target.importAccounts(users: users, tokens: tokens)
            report.users = users.count
            report.tokens = tokens.count
            let records = try await source.boards()
            for record in records {
                let snapshots = try await source.exportSnapshots(record.id)
                var events: [StoredEvent] = []
                var from: UInt64 = 1
                while from <= record.seq {
                    let chunk = try await source.events(record.id, from: from, to: record.seq, limit: Self.page)
                    guard let last = chunk.last else { break }
                    events += chunk
                    from = last.seq + 1
                }
                try await target.importBoard(record, snapshots: snapshots, events: events, now: now)
                report.boards += 1
                report.events += events.count
                logger.info("copied board \(record.id)", metadata: ["events": "\(events.count)", "seq": "\(record.seq)"])
            }
            // Webhooks: each with its secret, its cursor and its failure state, so deliveries go on where they were.
            let hooks = try await source.hooks(board: nil)
            for hook in hooks {
                _ = try await target.addHook(hook, maxPerBoard: .max)
                try await target.updateHook(hook.id, state: hook.state)
            }
            report.hooks = hooks.count
            report.hashes = try await verify(records, source: source, target: target)
            guard try await target.hooks(board: nil) == hooks else {
                throw ServerError(.storage, "the copied webhooks differ from the originals")
            }
        } catch let error as ServerError {
            throw error
        } catch let error as StoreError {
            throw ServerError(.storage, "the copy failed: \(error.message)")
        } catch {
            throw ServerError(.storage, "the copy failed: \(error)")
        }
        return report
    }

    /// Loads every board from both stores and compares the replayed boards' content hashes and the records.
    static func verify(
        _ records: [BoardRecord], source: any StoreExport, target: any StoreImport
    ) async throws -> [BoardID: String] {
        let copied = Dictionary(uniqueKeysWithValues: try await target.boards().map { ($0.id, $0) })
        var hashes: [BoardID: String] = [:]
        var wrong: [String] = []
        for record in records {
            guard let original = try await source.load(record.id)?.replayed() else { continue }
            guard let copy = try await target.load(record.id)?.replayed(), copied[record.id] == record else {
                wrong.append("\(record.id) (its record differs: \(String(describing: copied[record.id])))")
                continue
            }
            if original.contentHash != copy.contentHash {
                wrong.append("\(record.id) (hash \(original.contentHash) became \(copy.contentHash))")
            }
            hashes[record.id] = copy.contentHash
        }
        guard wrong.isEmpty else {
            throw ServerError(.storage, "after the copy these boards differ: \(wrong.joined(separator: ", "))")
        }
        return hashes
    }
}
