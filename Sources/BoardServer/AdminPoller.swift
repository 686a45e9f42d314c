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
struct AdminPoller {
    let registry: BoardRegistry
    let directory: SessionDirectory
    let store: any BoardStore
    let interval: Duration
    let logger: Logger
    /// How often presence is expired.
    var presenceSweep: Duration = .milliseconds(500)

    func run() async {
        var last: Int64 = 0
        /// Outcomes of applied commands the store has not recorded yet: written again on the next tick, never
        /// applied again (a create that worked would then be recorded as refused, and the tool told so).
        var unrecorded: [(id: Int64, failure: AdminFailure?)] = []
        var swept = ContinuousClock.now
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                if !unrecorded.isEmpty {
                    try await store.finish(unrecorded)
                    unrecorded = []
                }
                let batch = try await store.pendingCommands(after: last)
                if let newest = batch.last {
                    let failures = await apply(batch.map(\.command))
                    last = newest.id
                    unrecorded = zip(batch, failures).map { ($0.id, $1) }
                    try await store.finish(unrecorded)
                    unrecorded = []
                }
            } catch {
                logger.warning(
                    unrecorded.isEmpty ? "admin queue unreadable" : "admin outcomes not recorded; retrying",
                    metadata: ["error": "\(error)", "commands": "\(unrecorded.map(\.id))"])
            }
            if ContinuousClock.now - swept >= presenceSweep {
                swept = ContinuousClock.now
                for board in await registry.all() { await board.expirePresence() }
            }
            try? await Task.sleep(for: interval)
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
                    switch await board.applyForAdmin(op) {
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
            if let failure { logger.warning("admin command not applied", metadata: ["command": "\(command)", "reason": "\(failure)"]) }
            failures.append(failure)
        }
        // Durable before anyone is told it is done (a failed commit rolls its ops back).
        for change in changes {
            if let failure = await durable(change.board, change.seq) { failures[change.index] = failure }
        }
        return failures
    }

    /// Waits until the server's change at `seq` is durable (nil) or known lost. Polled rather than awaited: a board
    /// whose commit loop has stopped (the server is shutting down) must not hold the poller, and with it the
    /// shutdown, for ever; past a second of shutdown the change counts as not applied.
    private func durable(_ board: BoardActor, _ seq: UInt64) async -> AdminFailure? {
        var stopping: ContinuousClock.Instant?
        while true {
            switch await board.adminChange(at: seq) {
            case .durable: return nil
            case .lost: return AdminFailure(.failed, "the change was not stored (see the server's log)")
            case .pending: break
            }
            if Task.isCancelled { return AdminFailure(.failed, "the server stopped before the change was stored") }
            if Task.isShuttingDownGracefully {
                let since = stopping ?? ContinuousClock.now
                stopping = since
                if ContinuousClock.now - since > .seconds(1) {
                    return AdminFailure(.failed, "the server stopped before the change was stored")
                }
            }
            try? await Task.sleep(for: .milliseconds(2))
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
            for session in await directory.sessions(of: user) {
                session.outbox.sendAndClose(Lines.error(WireError(.tokenRevoked, "your access was revoked")))
            }
            return nil
        }
    }
}
