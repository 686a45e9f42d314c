import BoardCore
import BoardStore
import BoardWire
import Logging
import ServiceLifecycle

/// Applies what `corkd invite`, `corkd revoke` and `corkd board` queued in the store, so they work with the server
/// running, and records each outcome for the waiting tool; every `presenceSweep` it also expires stale presence.
///
/// The server is the only writer of board changes; the commands become ops by the server (actor `corkd`), changes
/// to the board list, or the closing of a revoked user's live sessions (`token_revoked`). A command is marked done
/// only once what it changed is durable.
///
/// Several nodes on one database (a ``SharedStore``): one node at a time applies the queue, the one holding the
/// admin lease (taken again by another node when its holder dies), so each command is applied once. Every node
/// follows the queue's outcomes and does its own part of what another node applied: closes the revoked user's
/// sessions here, stops serving a board archived there, serves one made or brought back there.
struct AdminPoller {
    let registry: BoardRegistry
    let directory: SessionDirectory
    let store: any BoardStore
    let interval: Duration
    let logger: Logger
    /// The store as several nodes share it (nil: only this node serves it).
    var shared: (any SharedStore)? = nil
    /// How often presence is expired.
    var presenceSweep: Duration = .milliseconds(500)

    func run() async {
        var last: Int64 = 0
        /// Outcomes of applied commands the store has not recorded yet: written again on the next tick, never
        /// applied again (a create that worked would then be recorded as refused, and the tool told so).
        var unrecorded: [(id: Int64, failure: AdminFailure?)] = []
        var swept = ContinuousClock.now
        var follower = Follower()
        let queueLog = RetryLog("admin queue unreadable; trying again", recovered: "the admin queue is read again")
        var lease = LeaseKeeper(.admin, logger: logger)
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            if let shared { await follow(shared, &follower) }
            do {
                if !unrecorded.isEmpty {
                    try await store.finish(unrecorded)
                    unrecorded = []
                }
                let batch = try await store.pendingCommands(after: last)
                if let newest = batch.last, await lease.holds(shared) {
                    let failures = await apply(batch.map(\.command))
                    last = newest.id
                    follower.appliedHere.formUnion(batch.map(\.id))
                    unrecorded = zip(batch, failures).map { ($0.id, $1) }
                    try await store.finish(unrecorded)
                    unrecorded = []
                }
                queueLog.worked(logger)
            } catch {
                queueLog.failed(
                    error, logger, message: unrecorded.isEmpty ? nil : "admin outcomes not recorded; trying again",
                    metadata: unrecorded.isEmpty ? [:] : ["commands": "\(unrecorded.map(\.id))"])
            }
            if ContinuousClock.now - swept >= presenceSweep {
                swept = ContinuousClock.now
                for board in await registry.all() { await board.expirePresence() }
            }
            try? await Task.sleep(for: interval)
        }
        await lease.release()
    }

    /// Where this node is in following the queue's outcomes (a shared store only).
    struct Follower {
        /// The id up to which every command's outcome has been followed; nil until the first read.
        var cursor: Int64?
        /// Commands this node applied itself, whose outcomes it skips when it meets them.
        var appliedHere: Set<Int64> = []
        let readLog = RetryLog(
            "admin queue unreadable (following other nodes); trying again",
            recovered: "the admin queue is followed again")
    }

    /// Does this node's part of the commands another node applied since the last call, in order, stopping at the
    /// first one still pending. The first call only finds where to start: the newest command, or just before the
    /// oldest pending one.
    func follow(_ shared: any SharedStore, _ follower: inout Follower) async {
        do {
            guard let cursor = follower.cursor else {
                let pending = try await store.pendingCommands(after: 0)
                if let oldest = pending.first {
                    follower.cursor = oldest.id - 1
                } else {
                    follower.cursor = try await shared.newestCommandID()
                }
                return
            }
            for entry in try await shared.commands(after: cursor, limit: 256) {
                if entry.outcome == .pending { break }
                follower.cursor = entry.id
                if follower.appliedHere.remove(entry.id) != nil || entry.outcome != .done { continue }
                await applyElsewhere(entry.command)
            }
            follower.readLog.worked(logger)
        } catch {
            follower.readLog.failed(error, logger)
        }
    }

    /// This node's part of a command another node applied.
    func applyElsewhere(_ command: AdminCommand) async {
        switch command {
        case .revoke(let user):
            await closeSessions(of: user)
        case .archiveBoard(let id):
            await registry.archivedElsewhere(id)
        case .createBoard(let id, _, _), .unarchiveBoard(let id):
            await registry.appearedElsewhere(id)
        case .addMember, .renameBoard:
            break  // ops: they reach this node through the board's log, like any other node's change
        }
    }

    /// Closes every live session of the user on this node with `token_revoked`.
    private func closeSessions(of user: UserID) async {
        for session in await directory.sessions(of: user) {
            session.outbox.sendAndClose(Lines.error(WireError(.tokenRevoked, "your access was revoked")))
        }
    }

    /// Applies a batch in order and returns each command's failure (nil: applied and durable).
    func apply(_ commands: [AdminCommand]) async -> [AdminFailure?] {
        var failures: [AdminFailure?] = []
        /// The ops applied: which command, on which board, at which seq.
        var changes: [(index: Int, board: BoardActor, seq: UInt64)] = []
        for (index, command) in commands.enumerated() {
            let failure: AdminFailure?
            if let op = command.op, let id = command.board {
                if let board = await registry.board(id) {
                    switch await board.applyAsServer([op]) {
                    case .failure(let rejection): failure = .refused(id, rejection)
                    case .success(let seq?):
                        changes.append((index, board, seq))
                        failure = nil
                    case .success(nil): failure = nil
                    }
                } else {
                    failure = .noBoard(id, archived: await registry.isArchived(id))
                }
            } else {
                failure = await apply(command)
            }
            if let failure {
                logger.warning("admin command not applied", metadata: ["command": "\(command)", "reason": "\(failure)"])
            } else {
                // An operator's trail of who was let in, given a role or revoked, and which boards changed.
                logger.info("admin command applied", metadata: ["command": "\(command)"])
            }
            failures.append(failure)
        }
        // Durable before anyone is told it is done (a failed commit rolls its ops back).
        for change in changes {
            if let failure = await durable(change.board, change.seq) { failures[change.index] = failure }
        }
        return failures
    }

    /// Waits until the server's change at `seq` is durable (nil) or known lost; past a second of shutdown the change
    /// counts as not applied.
    private func durable(_ board: BoardActor, _ seq: UInt64) async -> AdminFailure? {
        switch await board.settled(seq, shutdownGrace: .seconds(1)) {
        case .durable: nil
        case .lost: AdminFailure(.failed, "the change was not stored (see the server's log)")
        case .pending: AdminFailure(.failed, "the server stopped before the change was stored")
        }
    }

    /// Applies a command that is not an op.
    private func apply(_ command: AdminCommand) async -> AdminFailure? {
        switch command {
        case .addMember, .renameBoard:
            return nil
        case .createBoard(let id, let name, let owner):
            do {
                _ = try await store.ensureUser(owner, displayName: "")
                guard try await registry.create(id, name: name, owner: owner) != nil else {
                    return AdminFailure(.refused, "board id \(id) is taken\(await registry.isArchived(id) ? " (by an archived board)" : "")")
                }
                return nil
            } catch {
                return AdminFailure(.failed, "board \(id) could not be created: \(error)")
            }
        case .archiveBoard(let id):
            return await registry.archive(id)
        case .unarchiveBoard(let id):
            return await registry.unarchive(id)
        case .revoke(let user):
            await closeSessions(of: user)
            return nil
        }
    }
}
