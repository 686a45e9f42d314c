import BoardCore
import BoardWire
import ServiceLifecycle

extension BoardActor {
    /// Stops serving the board because it is archived: every subscriber gets `not_found` (the board is gone for
    /// them, as for a board that does not exist) and is dropped, presence is cleared. The caller has removed the
    /// board from the registry and drained it first.
    func closeForArchive() {
        machine.close()
        let line = Lines.error(WireError(.notFound, "board \(id) was archived", board: id))
        for (session, ref) in subscribers {
            ref.outbox.send(line)
            publication.withFanOut { $0.remove(session) }
        }
        subscribers = [:]
        for (session, entry) in presence where !isRemote(session) {
            configuration.presenceOutbound?.left(id, session, entry.user)
        }
        presence.removeAll()
        remotePresent = []
        presenceUpdated = [:]
    }

    /// Waits until the server's change at `seq` is durable or known lost; `.pending` when the wait gives up: the task
    /// is cancelled, or the server has been shutting down for longer than `shutdownGrace`. Polled rather than
    /// awaited, so a board whose commit loop has stopped (the server is shutting down) never holds the caller.
    nonisolated func settled(_ seq: UInt64, shutdownGrace: Duration) async -> BoardMachine.AdminChange {
        var stopping: ContinuousClock.Instant?
        while true {
            let change = await adminChange(at: seq)
            if change != .pending || Task.isCancelled { return change }
            if Task.isShuttingDownGracefully {
                let since = stopping ?? .now
                stopping = since
                if ContinuousClock.now - since >= shutdownGrace { return .pending }
            }
            try? await Task.sleep(for: .milliseconds(2))
        }
    }
}
