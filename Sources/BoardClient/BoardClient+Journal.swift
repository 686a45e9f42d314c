import BoardCore
import Foundation

extension BoardClient {
    /// A caller of ``submit(_:)`` waiting for its op to be on disk.
    struct JournalWaiter {
        /// The journal generation that holds the op.
        let generation: Int
        /// The op.
        let mut: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    /// Asks for the journal (client id, next mut, unfinished ops) to be written; returns the generation that will
    /// hold the current state (0 without a journal). The write happens off the actor, in ``runJournal()``; many
    /// requests made meanwhile share one write and one `fsync`.
    @discardableResult
    func saveJournal() -> Int {
        guard journalFile != nil else { return 0 }
        journalRequested += 1
        journalKick.yield()
        return journalRequested
    }

    /// Waits until generation `generation` of the journal, which holds op `mut`, is on disk. When the write fails
    /// the op is taken back (dropped and rolled back on the board) before this throws: an op the caller saw fail
    /// must never be sent by a later reconnect.
    func journalDurable(_ generation: Int, mut: UInt64) async throws(ClientError) {
        guard journalFile != nil, generation > journalWritten else { return }
        do {
            try await withCheckedThrowingContinuation { continuation in
                journalWaiters.append(JournalWaiter(generation: generation, mut: mut, continuation: continuation))
            }
        } catch {
            throw clientError(error)
        }
    }

    /// The state to write next and its generation, when a write was asked for since the last one.
    func journalToWrite() -> (journal: ClientJournal, generation: Int)? {
        guard journalRequested > journalTaken else { return nil }
        journalTaken = journalRequested
        let journal = ClientJournal(clientID: clientID, nextMut: nextMut, pending: pendingOps + restored)
        return (journal, journalRequested)
    }

    /// A write of generation `generation` ended: ops it holds may be sent now, and their callers return.
    func journalWrote(_ generation: Int, error: ClientError?) {
        if error == nil { journalWritten = max(journalWritten, generation) }
        let (done, waiting) = (
            journalWaiters.filter { $0.generation <= generation }, journalWaiters.filter { $0.generation > generation }
        )
        journalWaiters = waiting
        for waiter in done {
            if let error {
                if let op = pendingOps.first(where: { $0.mut == waiter.mut }) {
                    drop(op)
                    publishBoard(cause: .rollback, changes: replica?.changes(removing: op) ?? .everything)
                }
                waiter.continuation.resume(throwing: error)
            } else {
                waiter.continuation.resume()
            }
        }
        // Ops without a caller waiting (resent under a new mut) go as before a failed write: best effort.
        heldForJournal = heldForJournal.filter { $0.value > generation }
        flushOps()
    }

    /// The journal writer: runs in ``withClient(_:_:)``'s task group, off the actor, so an `fsync` never blocks the
    /// client. Each wake writes the newest state (so requests made during a write share the next one). When the
    /// client stops it writes once more, so nothing acknowledged before the stop is lost.
    nonisolated func runJournal() async {
        guard let file = journalFile else { return }
        for await _ in journalKicks {
            await writeJournal(file)
        }
        await writeJournal(file)
    }

    private nonisolated func writeJournal(_ file: JournalFile) async {
        guard let (journal, generation) = await journalToWrite() else { return }
        do {
            try file.save(journal)
            await journalWrote(generation, error: nil)
        } catch {
            await journalWrote(generation, error: error)
        }
    }
}
