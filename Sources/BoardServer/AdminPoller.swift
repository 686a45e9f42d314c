import BoardCore
import BoardStore
import BoardWire
import Logging
import ServiceLifecycle

/// Applies what `corkd invite` and `corkd revoke` queued in the store, so they work with the server running; on the
/// same tick it expires stale presence.
///
/// The server is the only writer of board changes; the commands become ops by the server (actor `corkd`), and a
/// revocation closes the user's live sessions with `token_revoked`.
struct AdminPoller {
    let registry: BoardRegistry
    let directory: SessionDirectory
    let store: any BoardStore
    let interval: Duration
    let logger: Logger

    func run() async {
        var last: Int64 = 0
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                for (id, command) in try await store.pendingCommands(after: last) {
                    await apply(command)
                    try await store.markDone(id)
                    last = id
                }
            } catch {
                logger.warning("admin queue unreadable", metadata: ["error": "\(error)"])
            }
            for board in await registry.all() { await board.expirePresence() }
            try? await Task.sleep(for: interval)
        }
    }

    func apply(_ command: AdminCommand) async {
        switch command {
        case .addMember(let board, let user, let role):
            if let rejection = await registry.board(board)?.applyAsServer(.setMember(user: user, role: role, name: nil)) {
                logger.warning("invite not applied", metadata: ["board": "\(board)", "reason": "\(rejection)"])
            }
        case .createBoard(let board, let name, let owner):
            do {
                _ = try await registry.create(board, name: name, owner: owner)
            } catch {
                logger.warning("board not created", metadata: ["board": "\(board)", "error": "\(error)"])
            }
        case .revoke(let user):
            for session in await directory.sessions(of: user) {
                session.outbox.sendAndClose(Lines.error(WireError(.tokenRevoked, "your access was revoked")))
            }
        }
    }
}
